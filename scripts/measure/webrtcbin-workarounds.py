#!/usr/bin/python3
"""Re-measures the webrtcbin behaviours behind docs/GSTREAMER-WORKAROUNDS.md §26 and §27 on whatever
GStreamer this python3-gi loads: run it on Debian 12 (1.22) and in a Debian 13 root (1.26) and compare
the lines. Each experiment prints one line, `§N key=value ...`, with what it saw. No network peer:
offers are only created (§26), and §27b/§27c connect two webrtcbins to each other in one process.

  python3 scripts/measure/webrtcbin-workarounds.py [§26a §26b §26c §27a §27b §27c]   (default: every experiment)

Needs python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0, gir1.2-gst-plugins-bad-1.0
(GstWebRTC-1.0.typelib), gstreamer1.0-plugins-good/bad, gstreamer1.0-nice. §27b/§27c's ICE needs real
interfaces (libnice skips loopback) and never uses the machine's: a run that names either (the default does)
goes on, whole, in a child of this script inside a network namespace made for it (a veth pair, 10.77.0.1/24
and 10.77.0.2/24, both ends in it), deleted afterwards however the child ends. That needs root and iproute2
(`ip netns`; in the Debian 13 root, scripts/debian13.sh makes the root the mount point `ip netns exec` needs).
There each webrtcbin gathers 3 host candidates per veth address (UDP, TCP active, TCP passive): 6, and 7 on
1.26, which also signals an empty end-of-candidates (9 and 10 before, over the machine's own interfaces).
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtp", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import Gst, GstRtp, GstSdp, GstWebRTC  # noqa: E402,F401

import experiments  # noqa: E402

Gst.init(None)
FILTER = "application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=111"
PARAMS = ",encoding-params=(string)2"
SOURCE = "audiotestsrc name=src is-live=true ! audioconvert ! audioresample ! opusenc ! rtpopuspay name=pay pt=111 ! capsfilter name=filter"

# webrtcbin's "Caps … are missing ssrc" is a GST_WARNING (debug log only): counted here, per offer.
MISSING_SSRC = []


def on_log(category, level, file, function, line, obj, message, *user_data):
    text = message.get() or ""
    if "missing ssrc" in text:
        MISSING_SSRC.append(text)


Gst.debug_set_threshold_for_name("webrtcbin", Gst.DebugLevel.WARNING)
Gst.debug_add_log_function(on_log, None)
try:  # counted above, not printed: stdout keeps one line per experiment
    Gst.debug_remove_log_function(None)
except Exception:
    pass


def sender(params=True, link="parse", transceiver=None):
    """SOURCE ! capsfilter caps=FILTER[PARAMS] ! webrtcbin, linked as `link` says: "parse" (gst-launch
    syntax, as the project does), "request" (a pad requested as sink_%u), "sink_0" (requested by name).
    transceiver="before"/"after": add-transceiver (sendrecv, Opus) before or after the link."""
    pipe = Gst.parse_launch(SOURCE + (" ! webrtcbin name=w bundle-policy=max-bundle" if link == "parse" else ""))
    filt = pipe.get_by_name("filter")
    filt.set_property("caps", Gst.Caps.from_string(FILTER + (PARAMS if params else "")))
    if link == "parse":
        w = pipe.get_by_name("w")
    else:
        w = Gst.ElementFactory.make("webrtcbin", "w")
        w.set_property("bundle-policy", GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
        pipe.add(w)
    notes = []

    def add_transceiver():
        t = w.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.SENDRECV,
                   Gst.Caps.from_string(FILTER + PARAMS))
        notes.append(f"add-transceiver gave mlineindex {t.get_property('mlineindex')}")

    if transceiver == "before":
        add_transceiver()
    if link != "parse":
        pad = w.request_pad_simple("sink_%u" if link == "request" else "sink_0")
        if pad is None:
            notes.append(f"request {link} gave no pad")
        else:
            t = pad.get_property("transceiver")
            notes.append(f"requested pad {pad.get_name()} (transceiver mlineindex "
                         f"{t.get_property('mlineindex') if t is not None else None})")
            filt.get_static_pad("src").link(pad)
    if transceiver == "after":
        add_transceiver()
    return pipe, w, filt, notes


def sink_caps(filt):
    peer = filt.get_static_pad("src").get_peer()
    return peer.get_current_caps() if peer is not None else None


def has_ssrc(caps):
    return caps is not None and caps.get_size() > 0 and caps.get_structure(0).has_field("ssrc")


def caps_word(caps):
    return "none" if caps is None else ("with ssrc" if has_ssrc(caps) else "without ssrc")


def wait_for_ssrc(filt, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if has_ssrc(sink_caps(filt)):
            return True
        time.sleep(0.01)
    return False


def call(element, signal, *args, timeout=5.0):
    """Emits a webrtcbin action signal that takes a promise last; returns its reply (None after `timeout`)."""
    done = threading.Event()
    promise = Gst.Promise.new_with_change_func(lambda p, *_: done.set(), None)
    element.emit(signal, *args, promise)
    if not done.wait(timeout):
        promise.interrupt()
        raise RuntimeError(f"{signal}: no reply within {timeout} s")
    reply = promise.get_reply()
    return reply.copy() if reply is not None else None  # the reply is the promise's, which goes with it


def offer(w, kind="offer"):
    """create-offer (or create-answer); returns (the GstWebRTCSessionDescription or None, its SDP text or an error)."""
    del MISSING_SSRC[:]
    reply = call(w, f"create-{kind}", None)
    if reply is None or not reply.has_field(kind):
        return None, f"no {kind} ({reply.to_string() if reply else None})"
    description = reply.get_value(kind).copy()
    return description, description.sdp.as_text()


def sdp_summary(sdp):
    lines = sdp.splitlines()
    mlines = [line for line in lines if line.startswith("m=")]
    ssrcs = [line for line in lines if line.startswith("a=ssrc:")]
    rtpmaps = sorted({line[len("a=rtpmap:"):] for line in lines if line.startswith("a=rtpmap:")})
    return (f"m-lines={len(mlines)} a=ssrc {'yes (' + str(len(ssrcs)) + ' lines)' if ssrcs else 'no'} "
            f"rtpmap={'|'.join(rtpmaps) or 'none'} missing-ssrc-warnings={len(MISSING_SSRC)}")


def count_buffers(pipe, filt):
    """Buffers out of rtpopuspay's src pad, and buffers that got past the probes on webrtcbin's sink pad."""
    count = [0, 0]

    def probe(pad, info, which):
        count[which] += 1
        return Gst.PadProbeReturn.OK

    pipe.get_by_name("pay").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe, 0)
    filt.get_static_pad("src").get_peer().add_probe(Gst.PadProbeType.BUFFER, probe, 1)
    return count


def offer_when(params, when, compact=False):
    """One offer from SOURCE ! filter ! webrtcbin. when: "blocked" (nothing has left audiotestsrc: a blocking
    probe on its src pad), "at-once" (create-offer right after set_state(PLAYING), no block), "caps-only"
    (buffers blocked at the filter's src pad, events pass), "after-ssrc" (webrtcbin's sink pad has caps
    with an ssrc). Says what webrtcbin's sink pad had when create-offer was called and when it replied."""
    pipe, w, filt, _ = sender(params)
    buffers = count_buffers(pipe, filt)
    probe, blocked_pad = None, None
    if when == "blocked":
        blocked_pad = pipe.get_by_name("src").get_static_pad("src")
        probe = blocked_pad.add_probe(Gst.PadProbeType.BLOCK | Gst.PadProbeType.DATA_DOWNSTREAM, lambda p, i: Gst.PadProbeReturn.OK)
    elif when == "caps-only":
        blocked_pad = filt.get_static_pad("src")
        probe = blocked_pad.add_probe(Gst.PadProbeType.BLOCK | Gst.PadProbeType.BUFFER, lambda p, i: Gst.PadProbeReturn.OK)
    pipe.set_state(Gst.State.PLAYING)
    if when == "caps-only":
        time.sleep(0.5)  # long enough for the first buffer to be produced and held
    elif when == "after-ssrc" and not wait_for_ssrc(filt):
        pipe.set_state(Gst.State.NULL)
        return f"{when}: no sink caps with ssrc within 3 s"
    caps = sink_caps(filt)
    passed = f"buffers out of rtpopuspay {buffers[0]}, past webrtcbin's sink pad probes {buffers[1]}"
    started = time.monotonic()
    _, sdp = offer(w)
    took = (time.monotonic() - started) * 1000
    caps_at_reply = sink_caps(filt)
    if probe is not None:
        blocked_pad.remove_probe(probe)
    pipe.set_state(Gst.State.NULL)
    if not sdp.startswith("v="):
        return f"{when}: {sdp}"
    if compact:
        return (f"sink caps {caps_word(caps)} at create-offer, {caps_word(caps_at_reply)} at its reply ({took:.0f} ms), "
                f"a=ssrc {'yes' if 'a=ssrc:' in sdp else 'no'}")
    return (f"{when}: sink caps {caps_word(caps)} at create-offer, {caps_word(caps_at_reply)} at its reply ({took:.0f} ms), "
            f"{passed}, {sdp_summary(sdp)}")


def e26a():
    """§26a: does the offer carry a=ssrc before anything flowed, and after the sink caps carry an ssrc? (caps with encoding-params)
    "at-once" is a race (no block): five runs."""
    out = [offer_when(True, when) for when in ("blocked", "caps-only", "after-ssrc")]
    out.insert(1, "at-once, 5 runs: " + " | ".join(offer_when(True, "at-once", compact=True) for _ in range(5)))
    print("§26a filter with encoding-params=(string)2: " + "; ".join(out))


def e26b():
    """§26b: the rtpmap without encoding-params in the filter's caps (offer before anything flowed, and after)."""
    out = [offer_when(False, when) for when in ("blocked", "after-ssrc")]
    print("§26b filter without encoding-params: " + "; ".join(out))


def e26c():
    """§26c: m-lines when add-transceiver (sendrecv, Opus) meets a linked payloader."""
    out = []
    for label, link, transceiver in [("linked only (gst-launch link)", "parse", None),
                                     ("add-transceiver, then payloader linked to requested sink_%u", "request", "before"),
                                     ("add-transceiver, then payloader linked to requested sink_0", "sink_0", "before"),
                                     ("payloader linked to requested sink_%u, then add-transceiver", "request", "after")]:
        pipe, w, filt, notes = sender(True, link, transceiver)
        pipe.set_state(Gst.State.PLAYING)
        got = wait_for_ssrc(filt)
        _, sdp = offer(w)
        pipe.set_state(Gst.State.NULL)
        summary = sdp_summary(sdp) if sdp.startswith("v=") else sdp
        mids = re.findall(r"^a=mid:(\S+)", sdp, re.M)
        out.append(f"{label}: {', '.join(notes) + ', ' if notes else ''}sink caps with ssrc {'yes' if got else 'no'}, "
                   f"{summary} mids={','.join(mids) or 'none'}")
    print("§26c " + "; ".join(out))


def jitter_props(element):
    pattern = re.compile(r"latency|jitter|lost|drop|rtx|retrans|nack|fec|buffer", re.I)
    found = []
    for spec in element.list_properties():
        if pattern.search(spec.name):
            try:
                value = element.get_property(spec.name)
            except Exception:  # write-only or unreadable
                value = "?"
            found.append(f"{spec.name}={value}")
    return found


def e27a():
    """§27a: webrtcbin's properties and signals that concern jitter buffers; its inner rtpbin's."""
    w = Gst.ElementFactory.make("webrtcbin")
    props = jitter_props(w)
    names = {spec.name for spec in w.list_properties()}
    signals = [name for name in (GObjectSignals(w)) if re.search(r"jitter", name)]
    w.set_property("latency", 123)
    rtpbin = w.get_by_name("rtpbin")
    if rtpbin is None:
        inner = "no child named rtpbin"
    else:
        inner = (f"child rtpbin ({rtpbin.get_factory().get_name()}): latency={rtpbin.get_property('latency')} "
                 f"do-lost={rtpbin.get_property('do-lost')} drop-on-latency={rtpbin.get_property('drop-on-latency')}")
    plain = Gst.ElementFactory.make("rtpbin")
    inner += f" (a plain rtpbin: latency={plain.get_property('latency')} do-lost={plain.get_property('do-lost')})"
    print(f"§27a webrtcbin properties matching latency|jitter|lost|drop|rtx|retrans|nack|fec|buffer: {', '.join(props) or 'none'}; "
          f"do-lost a webrtcbin property: {'yes' if 'do-lost' in names else 'no'}; webrtcbin signals matching jitter: "
          f"{', '.join(signals) or 'none'}; after webrtcbin latency=123: {inner}")


def GObjectSignals(element):
    from gi.repository import GObject
    names, gtype = [], element.get_factory().get_element_type()
    while gtype and gtype.name != "GObject":
        names += [GObject.signal_name(i) for i in GObject.signal_list_ids(gtype)]
        gtype = gtype.parent
    return names


# Set in the child that runs inside the namespace: the namespace's name.
NAMESPACE_VARIABLE = "WEBRTCBIN_WORKAROUNDS_NETNS"
NAMESPACE_PREFIX = "webrtcbin-wa-"


def ip(*arguments):
    """Runs `ip ARGUMENTS`; raises with its stderr when it fails."""
    done = subprocess.run(["ip", *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(arguments)}: {done.stderr.strip() or 'exit ' + str(done.returncode)}")


class Namespace:
    """A network namespace with a veth pair, 10.77.0.1/24 and 10.77.0.2/24, both ends in it, and lo up: the
    only interfaces libnice finds there are the veth ends (it skips loopback). IPv6 addresses are left off
    the veth (addrgenmode none), so the ICE candidates are on those two addresses only. Deleted on exit
    from the `with` (the veth pair goes with it)."""

    def __init__(self):
        self.name = f"{NAMESPACE_PREFIX}{os.getpid()}"

    def __enter__(self):
        remove_stale_namespaces()
        ip("netns", "add", self.name)
        try:
            steps = [("link", "set", "lo", "up"), ("link", "add", "wa0", "type", "veth", "peer", "name", "wa1")]
            for end, address in (("wa0", "10.77.0.1/24"), ("wa1", "10.77.0.2/24")):
                steps += [("link", "set", end, "addrgenmode", "none"), ("addr", "add", address, "dev", end),
                          ("link", "set", end, "up")]
            for step in steps:
                ip("-n", self.name, *step)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_):
        ip("netns", "del", self.name)


def remove_stale_namespaces():
    """Deletes this script's namespaces whose process is gone (one killed with SIGKILL could not)."""
    listed = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    for name in re.findall(rf"^({re.escape(NAMESPACE_PREFIX)}(\d+))\b", listed, re.M):
        if not os.path.exists(f"/proc/{name[1]}"):
            subprocess.run(["ip", "netns", "del", name[0]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_in_namespace():
    """Runs this script again, with the same arguments, under `ip netns exec` in a Namespace; returns its exit
    status. The whole run, not the ICE experiments alone, so they run in one process after the others as
    before: the process's first offer pays one-time costs (§26a's first create-offer takes 0.3-0.5 s),
    which a fresh process would add to §27b's times."""
    with Namespace() as namespace:
        command = ["ip", "netns", "exec", namespace.name, sys.executable, os.path.abspath(__file__), *sys.argv[1:]]
        return subprocess.run(command, env=dict(os.environ, **{NAMESPACE_VARIABLE: namespace.name})).returncode


def exit_on_signal(number, _frame):
    """SIGTERM/SIGHUP end the script as Ctrl-C does: through the `with`, so the namespace is deleted."""
    sys.exit(128 + number)


def pair(latency=123, do_lost=None, drop_every=0, decode=False, seconds=0.3):
    """Two webrtcbins joined in this process (which runs in a Namespace: see run_in_namespace), offer/answer
    and ICE candidates handed over directly: a sends Opus (SOURCE, linked), b receives (latency=`latency`).
    do_lost: set on each jitter buffer in b's rtpbin new-jitterbuffer handler (None: left as webrtcbin makes
    it). drop_every: every Nth RTP packet dropped before a's webrtcbin (the seqnums keep the gap). decode: b's
    audio goes through rtpopusdepay ! opusdec plc=true and runs `seconds` after its first buffer. Returns what
    it saw."""
    pipe = Gst.parse_launch(SOURCE + f" ! webrtcbin name=a bundle-policy=max-bundle webrtcbin name=b bundle-policy=max-bundle latency={latency}")
    pipe.get_by_name("filter").set_property("caps", Gst.Caps.from_string(FILTER + PARAMS))
    a, b, filt = pipe.get_by_name("a"), pipe.get_by_name("b"), pipe.get_by_name("filter")
    t0 = time.monotonic()
    seen = {"jitterbuffers": [], "pad": None, "first-rx": None, "candidates": {"a": 0, "b": 0}, "a-jitterbuffers": 0,
            "seqnums": [], "decoded": 0, "sent": 0, "dropped": 0}
    lock = threading.Lock()

    def on_jitterbuffer(rtpbin, jb, session, ssrc):
        before = (jb.get_property("latency"), jb.get_property("do-lost"))
        if do_lost is not None:
            jb.set_property("do-lost", do_lost)
        with lock:
            seen["jitterbuffers"].append((time.monotonic() - t0, jb, session, ssrc) + before)

    def on_candidate(src, mline, candidate, dst, name):
        seen["candidates"][name] += 1
        dst.emit("add-ice-candidate", mline, candidate)

    def on_rtp_out(pad, info):
        if seen["first-rx"] is None:
            seen["first-rx"] = time.monotonic() - t0
        ok, rtp = GstRtp.RTPBuffer.map(info.get_buffer(), Gst.MapFlags.READ)
        if ok:
            seen["seqnums"].append(rtp.get_seq())
            rtp.unmap()
        return Gst.PadProbeReturn.OK

    def on_decoded(pad, info):
        seen["decoded"] += info.get_buffer().duration
        return Gst.PadProbeReturn.OK

    def on_sent(pad, info):
        seen["sent"] += 1
        if drop_every and seen["sent"] % drop_every == 0:
            seen["dropped"] += 1
            return Gst.PadProbeReturn.DROP
        return Gst.PadProbeReturn.OK

    def on_pad(element, pad):
        if pad.get_direction() != Gst.PadDirection.SRC:
            return
        seen["pad"] = (time.monotonic() - t0, pad.get_name())
        if decode:
            sink = Gst.parse_bin_from_description("rtpopusdepay ! opusdec name=dec plc=true ! fakesink sync=false async=false", True)
            sink.get_by_name("dec").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_decoded)
        else:
            sink = Gst.ElementFactory.make("fakesink")
            sink.set_property("sync", False)
            sink.set_property("async", False)
        pipe.add(sink)
        sink.sync_state_with_parent()
        pad.add_probe(Gst.PadProbeType.BUFFER, on_rtp_out)
        pad.link(sink.get_static_pad("sink"))

    b.get_by_name("rtpbin").connect("new-jitterbuffer", on_jitterbuffer)
    a.get_by_name("rtpbin").connect("new-jitterbuffer", lambda *args: seen.__setitem__("a-jitterbuffers", seen["a-jitterbuffers"] + 1))
    a.connect("on-ice-candidate", on_candidate, b, "a")
    b.connect("on-ice-candidate", on_candidate, a, "b")
    b.connect("pad-added", on_pad)
    filt.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_sent)
    pipe.set_state(Gst.State.PLAYING)
    try:
        if not wait_for_ssrc(filt):
            raise RuntimeError("a's sink caps had no ssrc within 3 s")
        description, sdp = offer(a)
        if description is None:
            raise RuntimeError(f"offer: {sdp}")
        call(a, "set-local-description", description)
        call(b, "set-remote-description", description)
        answer, text = offer(b, "answer")
        if answer is None:
            raise RuntimeError(f"answer: {text}")
        call(b, "set-local-description", answer)
        call(a, "set-remote-description", answer)
        seen["answer-direction"] = ",".join(re.findall(r"^a=(sendrecv|sendonly|recvonly|inactive)\r?$", answer.sdp.as_text(), re.M)) or "?"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and seen["first-rx"] is None:
            time.sleep(0.05)
        if seen["first-rx"] is not None:
            time.sleep(seconds)
        seen["state"] = f"connection-state a={a.get_property('connection-state').value_nick} b={b.get_property('connection-state').value_nick}"
    except Exception as error:
        seen["error"] = repr(error)
    pipe.set_state(Gst.State.NULL)
    return seen


def e27b():
    """§27b: does b's inner rtpbin signal new-jitterbuffer when media arrives, and what does the jitter buffer
    carry (webrtcbin latency=123, nothing set in the handler)?"""
    seen = pair()
    if "error" in seen:
        result = f"failed: {seen['error']}; "
    else:
        result = (f"answer direction {seen['answer-direction']}, candidates a→b {seen['candidates']['a']} b→a {seen['candidates']['b']}, "
                  f"{seen['state']}; ")
    jbs = seen["jitterbuffers"]
    if jbs:
        at, jb, session, ssrc, latency, lost = jbs[0]
        result += (f"b's rtpbin new-jitterbuffer fired {len(jbs)}x (first at {at:.2f} s, session {session}, ssrc {ssrc}; "
                   f"in the handler latency={latency} do-lost={lost}; element {jb.get_factory().get_name()})")
    else:
        result += "b's rtpbin new-jitterbuffer fired 0x"
    result += (f", b src pad {seen['pad'][1] + ' at ' + format(seen['pad'][0], '.2f') + ' s' if seen['pad'] else 'none'}, "
               f"first RTP out of b {'at ' + format(seen['first-rx'], '.2f') + ' s' if seen['first-rx'] is not None else 'none'}, "
               f"a's rtpbin new-jitterbuffer {seen['a-jitterbuffers']}x")
    print("§27b two webrtcbins in one process, a sends Opus to b (b latency=123): " + result)


def e27c():
    """§27c: every 10th packet dropped before a's webrtcbin; how much does b's opusdec plc=true put out, with the
    jitter buffer as webrtcbin makes it and with do-lost=false set in new-jitterbuffer?"""
    out = []
    for label, do_lost in (("as webrtcbin makes it", None), ("do-lost=false set in new-jitterbuffer", False),
                           ("do-lost=true set in new-jitterbuffer", True)):
        seen = pair(latency=60, do_lost=do_lost, drop_every=10, decode=True, seconds=4.0)
        if "error" in seen or not seen["seqnums"]:
            out.append(f"{label}: no media ({seen.get('error', seen.get('state'))})")
            continue
        numbers = seen["seqnums"]
        span = (numbers[-1] - numbers[0]) % 65536 + 1
        jb_lost = seen["jitterbuffers"][0][5] if seen["jitterbuffers"] else "?"
        out.append(f"{label} (do-lost in the handler before any change: {jb_lost}): {len(numbers)} packets out of b's "
                   f"jitter buffer spanning {span} seqnums ({span * 20 / 1000:.2f} s of 20 ms packets), "
                   f"opusdec put out {seen['decoded'] / Gst.SECOND:.2f} s")
    print("§27c every 10th packet dropped before a (b latency=60, rtpopusdepay ! opusdec plc=true): " + "; ".join(out))


EXPERIMENTS = {"§26a": e26a, "§26b": e26b, "§26c": e26c, "§27a": e27a, "§27b": e27b, "§27c": e27c}
# The experiments that connect two webrtcbins with ICE (through pair()): they run in a Namespace.
ICE_EXPERIMENTS = {"§27b", "§27c"}

if __name__ == "__main__":
    if not os.environ.get(NAMESPACE_VARIABLE) and ICE_EXPERIMENTS & set(sys.argv[1:] or EXPERIMENTS):
        signal.signal(signal.SIGTERM, exit_on_signal)
        signal.signal(signal.SIGHUP, exit_on_signal)
        try:
            sys.exit(run_in_namespace())
        except (RuntimeError, OSError) as error:  # not root, no iproute2
            sys.exit(f"{', '.join(sorted(ICE_EXPERIMENTS))} run in a network namespace of their own, and making or "
                     f"deleting it failed: {error}. Run as root, or name only the other experiments.")
        except KeyboardInterrupt:  # the namespace is deleted already (the `with`)
            sys.exit(130)
    experiments.run(EXPERIMENTS)
