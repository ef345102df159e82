#!/usr/bin/python3
"""One kiosk as a WebRTC participant of a Janus AudioBridge room, with GStreamer's webrtcbin.

  kiosk.py --janus http://ADDR:8088/janus --room 2222 --freq 440 --seconds 12 --out rx.wav
           [--trickle] [--configure] [--fec] ...   (experiments: see --help and NOTES.md)

Sends a sine tone (audiotestsrc ! opusenc ! rtpopuspay pt=111 ! webrtcbin), is the OFFERER,
does the Janus signalling over the HTTP long-poll API (create, attach, join with jsep), sets
Janus's answer, records what comes back (pad-added ! rtpopusdepay ! opusdec ! wavenc) and prints
timestamped states (ICE gathering / ICE connection / DTLS / peer connection), the SDPs, the
received caps and the time to the first decoded buffer.
"""
import argparse, json, os, random, sys, threading, time, urllib.request

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("GstSdp", "1.0")
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402

T0 = time.monotonic()


def log(*parts):
    print(f"[{time.monotonic() - T0:7.3f}] {TAG}", *parts, flush=True)


TAG = ""


class Janus:
    """Janus's HTTP API: every call blocks (run off the GLib main loop)."""

    def __init__(self, url):
        self.url, self.session, self.handle = url, None, None

    def _post(self, url, body):
        body = dict(body, transaction="%016x" % random.getrandbits(64))
        req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            reply = json.load(r)
        if reply.get("janus") == "error":
            raise RuntimeError(f"Janus error {reply['error']}")
        return reply

    def create_and_attach(self):
        self.session = self._post(self.url, {"janus": "create"})["data"]["id"]
        self.handle = self._post(f"{self.url}/{self.session}",
                                 {"janus": "attach", "plugin": "janus.plugin.audiobridge"})["data"]["id"]

    def message(self, body, jsep=None):
        msg = {"janus": "message", "body": body}
        if jsep:
            msg["jsep"] = jsep
        return self._post(f"{self.url}/{self.session}/{self.handle}", msg)

    def trickle(self, candidate):
        return self._post(f"{self.url}/{self.session}/{self.handle}", {"janus": "trickle", "candidate": candidate})

    def destroy(self):
        try:
            self._post(f"{self.url}/{self.session}", {"janus": "destroy"})
        except Exception as e:  # best effort
            log("destroy failed:", e)

    def poll(self):
        with urllib.request.urlopen(f"{self.url}/{self.session}?maxev=5", timeout=40) as r:
            events = json.load(r)
        return events if isinstance(events, list) else [events]


class Kiosk:
    def __init__(self, a):
        self.a, self.loop = a, GLib.MainLoop()
        self.janus = Janus(a.janus)
        self.offer_sent = False
        self.joined_sent = False
        self.first_rx = None
        self.remote_set = None
        self.stopping = False
        self.pending_candidates = []
        self.rx_bin = None
        tone = (f"audiotestsrc is-live=true wave=sine freq={a.freq} volume=0.3 ! "
                "audio/x-raw,rate=48000,channels=1 ! audioconvert ! audioresample ! "
                f"opusenc bitrate=32000 {'inband-fec=true packet-loss-percentage=10' if a.fec else ''} ! rtpopuspay pt=111 ! "
                + ("" if a.no_capsfilter else
                   "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000"
                   + (",useinbandfec=(string)1" if a.fec else "") + " ! "))
        webrtc = f"webrtcbin name=w bundle-policy={a.bundle_policy} latency={a.jitter_latency}"
        if a.add_transceiver_first:   # transceiver first, then link the payloader to sink_0 by name
            self.pipe = Gst.parse_launch(tone + "identity name=tail " + webrtc)
            self.w = self.pipe.get_by_name("w")
            caps = Gst.Caps.from_string("application/x-rtp,media=audio,encoding-name=OPUS,payload=111,"
                                        "clock-rate=48000,encoding-params=(string)2")
            t = self.w.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.SENDRECV, caps)
            log("add-transceiver (before linking) ->", t)
            sink = self.w.request_pad_simple("sink_0")
            log("requested", sink.get_name(), "transceiver mlineindex",
                sink.get_property("transceiver").get_property("mlineindex"))
            self.pipe.get_by_name("tail").get_static_pad("src").link(sink)
        else:
            self.pipe = Gst.parse_launch(tone + webrtc)
            self.w = self.pipe.get_by_name("w")
        if a.add_transceiver:
            caps = Gst.Caps.from_string(
                "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000")
            t = self.w.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.SENDRECV, caps)
            log("add-transceiver ->", t)
        self.w.connect("on-negotiation-needed", self.on_negotiation_needed)
        self.w.connect("on-ice-candidate", self.on_ice_candidate)
        self.w.connect("pad-added", self.on_pad_added)
        for prop in ("ice-gathering-state", "ice-connection-state", "connection-state", "signaling-state"):
            self.w.connect(f"notify::{prop}", self.on_state)
        bus = self.pipe.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)

    # --- webrtcbin -------------------------------------------------------------------------
    def on_state(self, w, pspec):
        log(f"{pspec.name} -> {w.get_property(pspec.name).value_nick}")
        if pspec.name == "ice-gathering-state" and not self.a.trickle and \
                w.get_property(pspec.name) == GstWebRTC.WebRTCICEGatheringState.COMPLETE:
            GLib.idle_add(self.send_full_offer)
        if pspec.name == "ice-gathering-state" and self.a.trickle and self.offer_sent:
            GLib.idle_add(self.flush_candidates)

    def on_negotiation_needed(self, w):
        caps = w.get_static_pad("sink_0").get_current_caps() if w.get_static_pad("sink_0") else None
        log(f"on-negotiation-needed (sink_0 caps known: {caps is not None})")
        if self.a.use_negotiation_needed and not self.offer_sent:
            if self.a.offer_in_signal:
                self.create_offer()
            else:
                GLib.idle_add(self.create_offer)

    def wait_for_caps_then_offer(self):
        pad = self.w.get_static_pad("sink_0")
        if pad is None or pad.get_current_caps() is None:
            return True  # poll again in 50 ms
        log("sink_0 caps:", pad.get_current_caps().to_string())
        self.create_offer()
        return False

    def create_offer(self):
        if self.offer_sent:
            return False
        promise = Gst.Promise.new_with_change_func(self.on_offer_created, None)
        self.w.emit("create-offer", None, promise)
        return False

    def on_offer_created(self, promise, _):
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply else None
        if offer is None:
            log("create-offer gave no offer:", reply.to_string() if reply else None)
            return
        self.offer_sent = True
        sdp = offer.sdp.as_text()
        self.write("offer-initial.sdp", sdp)
        self.w.emit("set-local-description", offer, Gst.Promise.new())
        log("local description set (offer)")
        if self.a.trickle:
            GLib.idle_add(self.send_offer, sdp, True)

    def send_full_offer(self):
        sdp = self.w.get_property("local-description").sdp.as_text()
        self.send_offer(sdp, False)
        return False

    def send_offer(self, sdp, trickle):
        self.write("offer-sent.sdp", sdp)
        body = {"request": "join", "room": self.a.room, "display": f"kiosk-{self.a.freq}"}
        if self.a.prebuffer is not None:
            body["prebuffer"] = self.a.prebuffer
        jsep = {"type": "offer", "sdp": sdp, "trickle": trickle}
        if self.a.configure:   # join first (as the plain-RTP code does), then configure with the offer
            log("join (no jsep) ->", self.janus.message(body).get("janus"))
            reply = self.janus.message({"request": "configure", "muted": False}, jsep)
        else:
            reply = self.janus.message(body, jsep)
        log(f"{'configure' if self.a.configure else 'join'} sent (trickle={trickle}, {sdp.count('a=candidate')} candidates in SDP): {reply.get('janus')}")
        self.joined_sent = True
        if trickle:
            self.flush_candidates()
        return False

    def on_ice_candidate(self, w, mline, candidate):
        log(f"local candidate m{mline}: {candidate}")
        if self.a.trickle:
            self.pending_candidates.append({"candidate": candidate, "sdpMLineIndex": mline})
            if self.janus.handle and self.offer_sent:
                GLib.idle_add(self.flush_candidates)

    def flush_candidates(self):
        if not self.janus.handle or not self.joined_sent:
            return False
        while self.pending_candidates:
            c = self.pending_candidates.pop(0)
            if not self.a.no_send_candidates:
                log("trickle ->", self.janus.trickle(c).get("janus"))
        if self.w.get_property("ice-gathering-state") == GstWebRTC.WebRTCICEGatheringState.COMPLETE \
                and not getattr(self, "completed_sent", False):
            self.completed_sent = True
            self.janus.trickle({"completed": True})
            log("trickle completed sent")
        return False

    def hook_transports(self):
        # The pad's property, not emit("get-transceiver"): that emit crashed PyGObject here (segfault).
        t = self.w.get_static_pad("sink_0").get_property("transceiver")
        log(f"transceiver of sink_0: direction={t.get_property('direction').value_nick} mid={t.get_property('mid')}"
            f" codec-preferences={t.get_property('codec-preferences')}")
        sdp = self.w.get_property("local-description").sdp.as_text()
        log(f"m-lines in offer: {sdp.count(chr(10) + 'm=')}")
        for k in range(4):   # every transceiver (add-transceiver can make more than one on 1.22.0)
            pad = self.w.get_static_pad(f"sink_{k}")
            if pad is not None:
                log(f"sink_{k} transceiver: {pad.get_property('transceiver').get_property('mid')}")
        dtls = t.get_property("receiver").get_property("transport")
        if dtls is None:
            log("no DTLS transport yet")
            return
        log(f"dtls transport {dtls.get_property('session-id')} state now {dtls.get_property('state').value_nick}"
            f" client={dtls.get_property('client')}")
        hooks = os.environ.get("HOOKS", "dtls").split(",")
        if "dtls" in hooks:
            dtls.connect("notify::state", lambda d, p: log(f"dtls state -> {d.get_property('state').value_nick}"))
        ice = dtls.get_property("transport")
        log(f"ice transport component {ice.get_property('component').value_nick} state now {ice.get_property('state').value_nick}")
        if "ice" in hooks:
            ice.connect("notify::state", lambda i, p: log(f"ice transport state -> {i.get_property('state').value_nick}"))
        if "pair" in hooks:
            ice.connect("on-selected-candidate-pair-change", lambda i: self.log_pair(i))

    def log_pair(self, ice):
        log("selected candidate pair changed")

    def on_pad_added(self, w, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        log(f"pad-added {pad.get_name()} caps={pad.get_current_caps().to_string() if pad.get_current_caps() else pad.query_caps(None).to_string()}")
        rx = Gst.parse_bin_from_description(
            "rtpopusdepay ! opusdec name=dec ! audioconvert ! audioresample ! "
            "audio/x-raw,format=S16LE,rate=48000,channels=1 ! level interval=1000000000 post-messages=true ! "
            f"wavenc ! filesink location={self.a.out}", True)
        self.pipe.add(rx)
        rx.sync_state_with_parent()
        pad.link(rx.get_static_pad("sink"))
        self.rx_bin = rx
        rx.get_by_name("dec").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, self.on_first_rx)

    def on_first_rx(self, pad, info):
        self.first_rx = time.monotonic() - T0
        log(f"first decoded audio buffer, caps={pad.get_current_caps().to_string()}"
            + (f" ({self.first_rx - self.remote_set:.3f} s after remote description)" if self.remote_set else ""))
        return Gst.PadProbeReturn.REMOVE

    # --- Janus events ------------------------------------------------------------------------
    def poller(self):
        while not self.stopping:
            try:
                events = self.janus.poll()
            except Exception as e:
                if not self.stopping:
                    log("poll failed:", e)
                    time.sleep(1)
                continue
            for ev in events:
                GLib.idle_add(self.on_janus_event, ev)

    def on_janus_event(self, ev):
        kind = ev.get("janus")
        if kind == "keepalive":
            return False
        data = ev.get("plugindata", {}).get("data", {})
        summary = {k: v for k, v in ev.items() if k not in ("jsep", "plugindata", "session_id", "sender", "transaction")}
        log(f"janus event {kind} {json.dumps(data) if data else ''} {json.dumps(summary)}")
        jsep = ev.get("jsep")
        if jsep and jsep.get("type") == "answer":
            self.write("answer.sdp", jsep["sdp"])
            sdp = jsep["sdp"]
            if self.a.munge_answer or self.a.break_ice:
                sdp = self.munge(sdp)
                self.write("answer-munged.sdp", sdp)
            res, msg = GstSdp.SDPMessage.new_from_text(sdp)
            answer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, msg)
            self.w.emit("set-remote-description", answer, Gst.Promise.new_with_change_func(self.on_remote_set, None))
        return False

    def munge(self, sdp):
        # No munging is needed for Janus 1.1.2 + webrtcbin 1.22.0. --break-ice (a failure experiment) points
        # Janus's candidates at a dead port so that ICE must fail.
        if self.a.break_ice:
            import re
            sdp = re.sub(r"(a=candidate:\S+ \d \S+ \d+ \S+ )(\d+)", r"\g<1>9", sdp)
        return sdp

    def on_remote_set(self, promise, _):
        self.remote_set = time.monotonic() - T0
        reply = promise.get_reply()
        log("remote description set (answer)", reply.to_string() if reply else "")
        self.hook_transports()

    # --- bus and life cycle --------------------------------------------------------------------
    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            log(f"ERROR from {msg.src.get_name()}: {err.message} ({dbg})")
        elif t == Gst.MessageType.WARNING:
            err, dbg = msg.parse_warning()
            log(f"WARNING from {msg.src.get_name()}: {err.message}")
        elif t == Gst.MessageType.ELEMENT and msg.get_structure().get_name() == "level":
            rms = msg.get_structure().get_value("rms")
            log(f"rx level rms {rms[0]:.1f} dB")
        elif t == Gst.MessageType.EOS:
            log("EOS")
            self.loop.quit()

    def write(self, name, text):
        with open(os.path.join(self.a.dir, f"{self.a.freq}-{name}"), "w") as f:
            f.write(text)

    def print_stats(self):
        promise = Gst.Promise.new()
        self.w.emit("get-stats", None, promise)
        promise.wait()
        reply = promise.get_reply()
        keep = {"inbound-rtp": ("packets-received", "packets-lost", "jitter", "bytes-received"),
                "outbound-rtp": ("packets-sent", "bytes-sent"),
                "remote-inbound-rtp": ("packets-lost", "round-trip-time", "jitter"),
                "candidate-pair": ("state", "nominated", "selected"),
                "local-candidate": ("address", "port", "candidate-type", "protocol"),
                "remote-candidate": ("address", "port", "candidate-type", "protocol")}

        def each(field, value, _):
            if isinstance(value, Gst.Structure):
                kind = value.get_value("type")
                nick = kind.value_nick if hasattr(kind, "value_nick") else str(kind)
                if nick in keep:
                    vals = {k: value.get_value(k) for k in keep[nick] if value.has_field(k)}
                    log(f"stats {nick}: {vals}")
            return True
        reply.foreach(each, None)
        return False

    def stop(self):
        self.print_stats()
        self.stopping = True
        if self.w.get_property("connection-state") != GstWebRTC.WebRTCPeerConnectionState.CONNECTED:
            # Never connected (ICE/DTLS failed): webrtcbin keeps its inputs blocked, an EOS then holds the
            # state lock forever and set_state(NULL) deadlocks behind it (seen here): go to NULL at once.
            log("stopping without EOS: not connected")
            self.loop.quit()
            return False
        log("stopping: sending EOS")
        self.stopping = True
        # From another thread: send_event blocks while webrtcbin holds its pads blocked (no DTLS yet).
        threading.Thread(target=lambda: self.pipe.send_event(Gst.Event.new_eos()), daemon=True).start()
        GLib.timeout_add_seconds(3, self.loop.quit)
        return False

    def run(self):
        self.janus.create_and_attach()
        log(f"session {self.janus.session} handle {self.janus.handle}")
        threading.Thread(target=self.poller, daemon=True).start()
        self.pipe.set_state(Gst.State.PLAYING)
        if not self.a.use_negotiation_needed:
            GLib.timeout_add(50, self.wait_for_caps_then_offer)
        GLib.timeout_add_seconds(self.a.seconds, self.stop)
        self.loop.run()
        self.pipe.set_state(Gst.State.NULL)
        self.janus.destroy()
        log(f"done; first rx at {self.first_rx}")


def main():
    global TAG
    p = argparse.ArgumentParser()
    p.add_argument("--janus", required=True)
    p.add_argument("--room", type=int, default=2222)
    p.add_argument("--freq", type=int, default=440)
    p.add_argument("--seconds", type=int, default=12)
    p.add_argument("--out", required=True)
    p.add_argument("--dir", default=".")
    p.add_argument("--trickle", action="store_true", help="send the offer at once and trickle candidates")
    p.add_argument("--no-send-candidates", action="store_true", help="with --trickle: never send our candidates")
    p.add_argument("--use-negotiation-needed", action="store_true", help="offer from on-negotiation-needed")
    p.add_argument("--no-capsfilter", action="store_true", help="no caps filter between rtpopuspay and webrtcbin")
    p.add_argument("--offer-in-signal", action="store_true", help="create-offer inside on-negotiation-needed")
    p.add_argument("--break-ice", action="store_true", help="(with --trickle --no-send-candidates --munge-answer) make ICE fail")
    p.add_argument("--fec", action="store_true", help="Opus in-band FEC: opusenc inband-fec, useinbandfec=1 in the caps")
    p.add_argument("--configure", action="store_true", help="join without jsep, then configure with it")
    p.add_argument("--bundle-policy", default="max-bundle")
    p.add_argument("--add-transceiver-first", action="store_true", help="add-transceiver, then link to sink_0")
    p.add_argument("--add-transceiver", action="store_true", help="add-transceiver before linking (1.22 bug test)")
    p.add_argument("--munge-answer", action="store_true")
    p.add_argument("--prebuffer", type=int)
    p.add_argument("--jitter-latency", type=int, default=200)
    a = p.parse_args()
    TAG = f"[{a.freq}Hz]"
    Gst.init(None)
    Kiosk(a).run()


if __name__ == "__main__":
    main()
