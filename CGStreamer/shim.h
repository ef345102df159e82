// The GStreamer C API as the Swift bindings see it.
//
// Swift imports functions, structs and enums directly. It cannot import function-like macros
// or variadic functions: each `static inline cgst_*` below stands in for exactly one of those,
// with one line saying which. Nothing here re-wraps something Swift can already call.
#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H

#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/base/gstaggregator.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/pbutils/pbutils.h>
#include <gst/tag/tag.h>
#include <gst/fft/gstfftf32.h>
#include <gst/net/gstnetaddressmeta.h>
#include <gst/sdp/sdp.h>
#include <gst/rtp/rtp.h>

// G_OBJECT_TYPE is a macro.
static inline GType cgst_object_type(gpointer object) { return G_OBJECT_TYPE(object); }

// g_signal_emit_by_name is variadic: an action signal with one object argument and no return value.
static inline void cgst_signal_emit_object(gpointer instance, const gchar *signal, gpointer object) {
    g_signal_emit_by_name(instance, signal, object);
}

// G_OBJECT_GET_CLASS is a macro.
static inline GParamSpec *cgst_object_find_property(gpointer object, const gchar *name) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
}

// G_TYPE_FUNDAMENTAL is a macro.
static inline GType cgst_type_fundamental(GType type) { return G_TYPE_FUNDAMENTAL(type); }

// The fundamental type ids (G_TYPE_BOOLEAN …) are macros.
static inline GType cgst_type_boolean(void) { return G_TYPE_BOOLEAN; }
static inline GType cgst_type_int(void) { return G_TYPE_INT; }
static inline GType cgst_type_uint(void) { return G_TYPE_UINT; }
static inline GType cgst_type_long(void) { return G_TYPE_LONG; }
static inline GType cgst_type_ulong(void) { return G_TYPE_ULONG; }
static inline GType cgst_type_int64(void) { return G_TYPE_INT64; }
static inline GType cgst_type_uint64(void) { return G_TYPE_UINT64; }
static inline GType cgst_type_float(void) { return G_TYPE_FLOAT; }
static inline GType cgst_type_double(void) { return G_TYPE_DOUBLE; }
static inline GType cgst_type_string(void) { return G_TYPE_STRING; }
static inline GType cgst_type_enum(void) { return G_TYPE_ENUM; }
static inline GType cgst_type_object(void) { return G_TYPE_OBJECT; }
static inline GType cgst_type_boxed(void) { return G_TYPE_BOXED; }

// GValueArray is deprecated in GLib, but `level` still posts its rms/peak/decay as one; these
// read it without deprecation warnings spreading into Swift.
static inline guint cgst_value_array_length(const GValue *value) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GValueArray *array = (GValueArray *) g_value_get_boxed(value);
    return array ? array->n_values : 0;
    G_GNUC_END_IGNORE_DEPRECATIONS
}
static inline const GValue *cgst_value_array_nth(const GValue *value, guint index) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GValueArray *array = (GValueArray *) g_value_get_boxed(value);
    return (array && index < array->n_values) ? &array->values[index] : NULL;
    G_GNUC_END_IGNORE_DEPRECATIONS
}
static inline GType cgst_type_value_array(void) {
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    return G_TYPE_VALUE_ARRAY;
    G_GNUC_END_IGNORE_DEPRECATIONS
}

// gst_buffer_get_net_address_meta is a macro: where a received packet came from (udpsrc's meta), or NULL.
static inline GSocketAddress *cgst_buffer_net_address(GstBuffer *buffer) {
    GstNetAddressMeta *meta = gst_buffer_get_net_address_meta(buffer);
    return meta ? meta->addr : NULL;
}

// G_IS_INET_SOCKET_ADDRESS and G_INET_SOCKET_ADDRESS are macros: the address as an IP one, or NULL.
static inline GInetSocketAddress *cgst_inet_socket_address(GSocketAddress *address) {
    return G_IS_INET_SOCKET_ADDRESS(address) ? G_INET_SOCKET_ADDRESS(address) : NULL;
}

// webrtcbin's action signals take typed arguments through g_signal_emit_by_name, which is variadic.
static inline void cgst_webrtc_create(GstElement *webrtc, const gchar *signal, GstPromise *promise) {
    g_signal_emit_by_name(webrtc, signal, NULL, promise);
}
static inline void cgst_webrtc_set_description(GstElement *webrtc, const gchar *signal, gpointer description, GstPromise *promise) {
    g_signal_emit_by_name(webrtc, signal, description, promise);
}

// GST_MINI_OBJECT_TYPE is a macro: what a boxed value really holds, whatever its property says.
static inline GType cgst_mini_object_type(gconstpointer object) { return GST_MINI_OBJECT_TYPE(object); }

// An action signal without arguments (srtpdec's "clear-keys"): g_signal_emit_by_name is variadic.
static inline void cgst_emit(gpointer object, const gchar *signal) {
    g_signal_emit_by_name(object, signal);
}

// GstWebRTCSessionDescription's public layout (gst/webrtc/rtcsessiondescription.h, stable since 1.14).
// Its header comes only with libgstreamer-plugins-bad1.0-dev, which pulls OpenCV into the build on
// Debian 12 (155 packages), so the boxed type is used by name, registered once webrtcbin is loaded.
typedef struct { int type; GstSDPMessage *sdp; } cgst_webrtc_session_description;

// A boxed GstWebRTCSessionDescription of `type` (1 offer, 3 answer) from SDP text, or NULL when the
// text is not SDP or webrtcbin was never loaded; free with cgst_webrtc_description_free.
static inline gpointer cgst_webrtc_description_new(int type, const gchar *text) {
    GType boxed = g_type_from_name("GstWebRTCSessionDescription");
    GstSDPMessage *sdp = NULL;
    if (boxed == 0 || gst_sdp_message_new_from_text(text, &sdp) != GST_SDP_OK) return NULL;
    cgst_webrtc_session_description stack = { type, sdp };
    gpointer copy = g_boxed_copy(boxed, &stack);   // copies the SDP too
    gst_sdp_message_free(sdp);
    return copy;
}
static inline void cgst_webrtc_description_free(gpointer description) {
    g_boxed_free(g_type_from_name("GstWebRTCSessionDescription"), description);
}
// The SDP text of a boxed description (g_free it), or NULL.
static inline gchar *cgst_webrtc_description_text(gconstpointer description) {
    const cgst_webrtc_session_description *d = description;
    return (d && d->sdp) ? gst_sdp_message_as_text(d->sdp) : NULL;
}

#endif
