/* Drives webrtcbin's offer/answer without gst/webrtc/webrtc.h (libgstreamer-plugins-bad1.0-dev pulls
 * ~155 packages incl. OpenCV on Debian 12): only gst core + gst/sdp (plugins-base-dev), the session
 * description built with g_boxed_copy of a struct laid out like GstWebRTCSessionDescription.
 * Two webrtcbins in one process: A offers, its SDP goes to text and back, B answers, A takes the answer. */
#include <gst/gst.h>
#include <gst/sdp/sdp.h>

typedef struct { int type; GstSDPMessage *sdp; } Desc;   /* == GstWebRTCSessionDescription */
enum { SDP_OFFER = 1, SDP_ANSWER = 3 };                     /* GST_WEBRTC_SDP_TYPE_* values */

static GstStructure *await(GstElement *w, const char *sig, gpointer desc) {
  GstPromise *p = gst_promise_new();
  if (desc) g_signal_emit_by_name(w, sig, desc, p); else g_signal_emit_by_name(w, sig, NULL, p);
  gst_promise_wait(p);
  GstStructure *r = gst_promise_get_reply(p) ? gst_structure_copy(gst_promise_get_reply(p)) : NULL;
  gst_promise_unref(p);
  return r;
}

/* reply field ("offer"/"answer") -> SDP text */
static gchar *text_of(GstStructure *reply, const char *field) {
  const GValue *v = reply ? gst_structure_get_value(reply, field) : NULL;
  if (!v) return NULL;
  const Desc *d = g_value_get_boxed(v);
  return gst_sdp_message_as_text(d->sdp);
}

/* SDP text -> a new GstWebRTCSessionDescription (boxed; free with g_boxed_free) */
static gpointer desc_from(int type, const gchar *text) {
  Desc d = { type, NULL };
  gst_sdp_message_new_from_text(text, &d.sdp);
  GType t = g_type_from_name("GstWebRTCSessionDescription");
  gpointer copy = g_boxed_copy(t, &d);   /* deep copy (gst_webrtc_session_description_copy) */
  gst_sdp_message_free(d.sdp);
  return copy;
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  GstElement *pipe = gst_parse_launch(
      "audiotestsrc is-live=true ! opusenc ! rtpopuspay pt=111 ! application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000 ! webrtcbin name=a bundle-policy=max-bundle "
      "audiotestsrc is-live=true ! opusenc ! rtpopuspay pt=111 ! application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000 ! webrtcbin name=b bundle-policy=max-bundle", NULL);
  GstElement *a = gst_bin_get_by_name(GST_BIN(pipe), "a"), *b = gst_bin_get_by_name(GST_BIN(pipe), "b");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  gst_element_get_state(pipe, NULL, NULL, GST_CLOCK_TIME_NONE);
  g_usleep(200000);
  GType t = g_type_from_name("GstWebRTCSessionDescription");
  g_print("GstWebRTCSessionDescription GType known after webrtcbin loaded: %s\n", t ? "yes" : "no");
  GstStructure *offer = await(a, "create-offer", NULL);
  gchar *offer_text = text_of(offer, "offer");
  g_print("offer: %s\n", offer_text ? "yes" : "NO");
  gpointer local = desc_from(SDP_OFFER, offer_text);
  GstStructure *r1 = await(a, "set-local-description", local);
  gpointer remote = desc_from(SDP_OFFER, offer_text);
  GstStructure *r2 = await(b, "set-remote-description", remote);
  GstStructure *answer = await(b, "create-answer", NULL);
  gchar *answer_text = text_of(answer, "answer");
  g_print("set-local on A: %s\nset-remote on B: %s\nanswer from B: %s\n",
          r1 ? gst_structure_to_string(r1) : "ok (no reply)", r2 ? gst_structure_to_string(r2) : "ok (no reply)",
          answer_text ? "yes" : "NO");
  GstStructure *r3 = await(a, "set-remote-description", desc_from(SDP_ANSWER, answer_text));
  g_print("set-remote (answer) on A: %s\n", r3 ? gst_structure_to_string(r3) : "ok (no reply)");
  int sig; g_object_get(a, "signaling-state", &sig, NULL);
  g_print("A signaling-state: %d (0 = stable)\n", sig);
  g_print("answer lines:\n%s", answer_text);
  gst_element_set_state(pipe, GST_STATE_NULL);
  return 0;
}
