#!/usr/bin/python3
"""Re-measures GSTREAMER-WORKAROUNDS §11 (the echo probe told its upstream latency is 0) and §14 (a
lesson prerolls before it plays) on whatever GStreamer this python3-gi loads: run it on Debian 12
(1.22) and in the Debian 13 root (1.26) and compare the lines. Each experiment prints one line.

  /usr/bin/python3 scripts/measure/lesson-and-probe.py [§11] [§14]     (default: both)

§11: a far end paced in real time into webrtcechoprobe (an appsrc reporting 50 ms of latency and
delivering each 10 ms frame that late, as the engine's mixer does) ! fakesink sync=true, and in the same
pipeline (latency 50 ms) a near end paced in real time (each 10 ms frame pushed at the end of its capture
time) ! clocksync ts-offset=HOLD ! webrtcdsp (echo-cancel only) ! appsink. The near end is the far end's
echo (20 ms path, -6 dB), so the DSP's ERLE says whether the probe served it the far end. webrtcdsp does not
wait for the far end: it asks the probe when it processes a frame, and the probe serves the far end that
plays `delay` (its upstream latency) after the frame's capture time, flushing what it skips. So "the wait"
is HOLD, the near end's own hold before the DSP (the engine's `echoReferenceWait`). Per variant: ERLE over
the last 2 s; push -> appsink (median: the hold as the frames saw it); and, from the far end's arrival times
at the probe, when the far end the probe serves each frame (by its formula: play time = pts + pipeline
latency = capture time + delay) had arrived, after the frame's capture time (median), and for how many
frames it had arrived when the DSP took the frame. "latency 0" is the project's workaround
(`AudioEngine.init`): a QUERY_UPSTREAM probe on the probe's src pad answering LATENCY live, min 0, max none,
HANDLED. python3-gi hands the probe a second reference to the query (not writable): the answer is written
through libgstreamer with ctypes (`answer_latency`), and read back.

§14: uridecodebin of samples/lesson.webm, video -> queue ! videoconvert ! fakesink sync=true, audio ->
queue ! audioconvert ! audioresample ! fakesink sync=true (added and synced with the pipeline on
pad-added, as `LessonBranches` does), NULL -> PLAYING at once, and NULL -> PAUSED (ASYNC_DONE) -> PLAYING,
idle and under two busy-loop child processes (the "loaded machine"; they end themselves after 15 s at most,
and are ended by pid after the loaded runs). Each sink's handoff records the clock time; a buffer's
earliness is its running time (pts through its segment) less the pipeline clock's running time (the
pipeline's base time once PLAYING) at the handoff. Per run: video frames of the first second handed over
more than 20 ms early, the running time they cover, and how far the first picture's render is from its
sound's: (video render - audio render) - (video running time - audio running time), + = picture late.

Needs python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0, gstreamer1.0-plugins-good/bad
(webrtcdsp), and VP8/Opus/WebM decoders. Timings are wall-clock: run it on an otherwise quiet machine.
"""
import array
import ctypes
import math
import os
import random
import statistics
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

import busy_loops  # noqa: E402
import experiments  # noqa: E402

Gst.init(None)
MS = Gst.MSECOND
RATE = 48000
FRAME = 480  # 10 ms at 48 kHz
CAPS = "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved"
HERE = os.path.dirname(os.path.abspath(__file__))
LESSON = os.path.normpath(os.path.join(HERE, "../../samples/lesson.webm"))

# ---------------------------------------------------------------------------------------------
# Writing a query's answer from a Python pad probe.

_gst = ctypes.CDLL("libgstreamer-1.0.so.0")
_gobject = ctypes.CDLL("libgobject-2.0.so.0")
_gst.gst_query_set_latency.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64]
_gst.gst_query_set_latency.restype = None
_gst.gst_mini_object_ref.argtypes = [ctypes.c_void_p]
_gst.gst_mini_object_ref.restype = ctypes.c_void_p
_gst.gst_mini_object_unref.argtypes = [ctypes.c_void_p]
_gst.gst_mini_object_unref.restype = None
_gobject.g_type_name.argtypes = [ctypes.c_size_t]
_gobject.g_type_name.restype = ctypes.c_char_p


def answer_latency(query, live, minimum, maximum):
    """gst_query_set_latency on the query a pad probe was handed. The Python wrapper (PyGBoxed: the object
    header, then the pointer) holds a reference of its own, so the query is not writable through
    Gst.Query.set_latency; the extra references are dropped for the write (the query's owner, blocked in
    gst_pad_query, keeps its own) and taken back after it. Returns the answer read back."""
    pointer = ctypes.c_void_p.from_address(id(query) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    if not pointer or _gobject.g_type_name(ctypes.c_size_t.from_address(pointer).value) != b"GstQuery":
        raise RuntimeError("cannot find the GstQuery behind the Python wrapper")
    extra = ctypes.c_int.from_address(pointer + ctypes.sizeof(ctypes.c_size_t)).value - 1  # GstMiniObject.refcount
    for _ in range(extra):
        _gst.gst_mini_object_unref(pointer)
    _gst.gst_query_set_latency(pointer, 1 if live else 0, minimum, maximum)
    for _ in range(extra):
        _gst.gst_mini_object_ref(pointer)
    return query.parse_latency()


# ---------------------------------------------------------------------------------------------
# §11

UPSTREAM_MS = 50   # the far end's latency at the probe (the doc's 50 ms)
LATENCY_MS = 50    # the pipeline latency (configured, so the workaround's answer does not change it)
PATH_MS = 20       # the echo path above the play time
SECONDS = 5


def far_signal(samples):
    rng = random.Random(11)
    return array.array("h", (rng.randint(-6000, 6000) for _ in range(samples)))


def energy(samples):
    return float(sum(x * x for x in samples))


def e11_run(far, near, zero, hold_ms):
    pipe = Gst.parse_launch(
        f"appsrc name=far is-live=true format=time min-latency={UPSTREAM_MS * MS} max-latency=-1 caps={CAPS} "
        "! webrtcechoprobe name=echo ! fakesink name=farsink sync=true "
        f"appsrc name=near is-live=true format=time min-latency=0 max-latency=-1 caps={CAPS} "
        f"! clocksync name=hold ts-offset={hold_ms * MS} sync=true "
        "! webrtcdsp name=dsp probe=echo echo-cancel=true noise-suppression=false high-pass-filter=false gain-control=false "
        "! appsink name=out sync=false async=false max-buffers=1 drop=true")
    far_src, near_src, echo, dsp, out = (pipe.get_by_name(n) for n in ("far", "near", "echo", "dsp", "out"))
    if dsp.find_property("delay-agnostic") is not None:
        dsp.set_property("delay-agnostic", False)  # as VoiceProcessing.apply writes it on AEC1
    clock = Gst.SystemClock.obtain()
    pipe.use_clock(clock)
    pipe.set_start_time(Gst.CLOCK_TIME_NONE)
    base = clock.get_time()
    pipe.set_base_time(base)
    pipe.set_latency(LATENCY_MS * MS)

    def running():
        return clock.get_time() - base

    arrived, taken, pushed, outs = {}, {}, {}, {}
    seen = {"latency-event": None, "answered": [], "errors": []}

    def at_probe(pad, info):
        arrived[info.get_buffer().pts] = running()
        return Gst.PadProbeReturn.OK

    def at_dsp(pad, info):
        taken[info.get_buffer().pts] = running()
        return Gst.PadProbeReturn.OK

    def at_out(pad, info):
        buffer = info.get_buffer()
        ok, mapped = buffer.map(Gst.MapFlags.READ)
        outs[buffer.pts] = (time.monotonic(), bytes(mapped.data))
        buffer.unmap(mapped)
        return Gst.PadProbeReturn.OK

    def latency_event(pad, info):
        event = info.get_event()
        if event.type == Gst.EventType.LATENCY:
            seen["latency-event"] = event.parse_latency()
        return Gst.PadProbeReturn.OK

    def answer(pad, info):
        query = info.get_query()
        if query.type != Gst.QueryType.LATENCY:
            return Gst.PadProbeReturn.OK
        try:
            seen["answered"].append(answer_latency(query, True, 0, Gst.CLOCK_TIME_NONE))
        except Exception as error:  # noqa: BLE001 - reported in the line
            seen["errors"].append(repr(error))
            return Gst.PadProbeReturn.OK
        return Gst.PadProbeReturn.HANDLED

    echo_src = echo.get_static_pad("src")
    echo.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, at_probe)
    dsp.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, at_dsp)
    out.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, at_out)
    echo_src.add_probe(Gst.PadProbeType.EVENT_UPSTREAM, latency_event)
    if zero:
        echo_src.add_probe(Gst.PadProbeType.QUERY_UPSTREAM, answer)
    pipe.set_state(Gst.State.PLAYING)
    for k in range(SECONDS * 100 + 1):
        delay = (k * 10 * MS - running()) / Gst.SECOND
        if delay > 0:
            time.sleep(delay)
        t = k * 10 - UPSTREAM_MS  # the far frame [t, t+10) arrives as late as its latency says
        if t >= 0:
            b = Gst.Buffer.new_wrapped(far[t * 48:t * 48 + FRAME].tobytes())
            b.pts, b.duration = t * MS, 10 * MS
            far_src.emit("push-buffer", b)
        r = k * 10 - 10  # the near frame [r, r+10) is pushed once captured
        if r >= 0:
            b = Gst.Buffer.new_wrapped(near[r * 48:r * 48 + FRAME].tobytes())
            b.pts, b.duration = r * MS, 10 * MS
            pushed[r * MS] = time.monotonic()
            near_src.emit("push-buffer", b)
    time.sleep(0.1 + hold_ms / 1000)
    query = Gst.Query.new_latency()  # what the probe's own query gets (through the answer, if installed)
    probe_delay = query.parse_latency()[1] / MS if echo_src.query(query) else None
    pipe.set_state(Gst.State.NULL)

    window = [r * MS for r in range((SECONDS - 2) * 1000, SECONDS * 1000 - 10, 10)]
    e_in = sum(energy(near[p // MS * 48:p // MS * 48 + FRAME]) for p in window if p in outs)
    e_out = sum(energy(array.array("h", outs[p][1])) for p in window if p in outs)
    erle = 10 * math.log10(e_in / max(e_out, 1e-9)) if e_in > 0 else float("nan")
    waits = [(outs[p][0] - pushed[p]) * 1000 for p in pushed if p in outs]
    # The far end the probe serves frame r: play time r + delay, i.e. pts r + delay - pipeline latency.
    latency_ms = seen["latency-event"] / MS if seen["latency-event"] is not None else None
    needed, served = [], 0
    if probe_delay is not None and latency_ms is not None:
        for p, when in taken.items():
            want = p + int((probe_delay - latency_ms) * MS)
            if want in arrived:
                needed.append((arrived[want] - p) / MS)
                served += arrived[want] <= when
    return {"erle": erle, "wait": statistics.median(waits) if waits else float("nan"), "frames": len(waits),
            "needed": statistics.median(needed) if needed else float("nan"), "served": served, "taken": len(taken),
            "delay": probe_delay, "latency": latency_ms, "answered": seen["answered"], "errors": seen["errors"]}


def e11():
    if Gst.ElementFactory.find("webrtcdsp") is None:
        print("§11 skipped: no webrtcdsp")
        return
    seconds_of_far = SECONDS + 1
    far = far_signal(seconds_of_far * RATE)
    shift = (PATH_MS + LATENCY_MS) * 48  # near(s) = far played (pts + latency) PATH_MS before s, at -6 dB
    near = array.array("h", bytes(2 * shift)) + array.array("h", (x // 2 for x in far[:len(far) - shift]))
    parts = []
    for label, zero, holds in (("as is", False, (10, 30, 60)), ("latency 0", True, (10,))):
        runs = [(hold, e11_run(far, near, zero, hold)) for hold in holds]
        first = runs[0][1]
        answered = (f", answer read back min {first['answered'][0][1] / MS:.0f} ms ({len(first['answered'])} queries)"
                    if first["answered"] else "") + (f", answer failed {first['errors'][0]}" if first["errors"] else "")
        head = (f"{label} (probe's delay {first['delay']:.0f} ms, pipeline latency {first['latency']:.0f} ms{answered}): "
                if first["delay"] is not None and first["latency"] is not None else f"{label} (delay/latency unknown{answered}): ")
        body = "; ".join(f"hold {hold} ms: ERLE {r['erle']:.1f} dB, push->appsink {r['wait']:.1f} ms (median of {r['frames']}), "
                         f"served far end there when taken for {r['served']}/{r['taken']} frames"
                         for hold, r in runs)
        parts.append(head + f"the far end it serves a frame arrived {first['needed']:.1f} ms after the frame's capture time "
                     f"(median); " + body)
    print(f"§11 webrtcechoprobe, far end {UPSTREAM_MS} ms late as it reports, echo path {PATH_MS} ms -6 dB, "
          f"ERLE over the last 2 s of {SECONDS}: " + " | ".join(parts))


# ---------------------------------------------------------------------------------------------
# §14


def lesson_run(preroll, seconds=1.5):
    pipe = Gst.Pipeline.new("lesson")
    clock = Gst.SystemClock.obtain()
    pipe.use_clock(clock)
    decode = Gst.ElementFactory.make("uridecodebin", "decode")
    decode.set_property("uri", Gst.filename_to_uri(LESSON))
    pipe.add(decode)
    renders = {"video": [], "audio": []}

    def handoff(sink, buffer, pad, kind):
        now = clock.get_time()
        segment = pad.get_sticky_event(Gst.EventType.SEGMENT, 0).parse_segment()
        renders[kind].append((now, segment.to_running_time(Gst.Format.TIME, buffer.pts), sink.get_base_time()))

    def make(factory, **props):
        element = Gst.ElementFactory.make(factory, None)
        for key, value in props.items():
            element.set_property(key.rstrip("_").replace("_", "-"), value)
        return element

    def pad_added(element, pad):
        caps = pad.get_current_caps() or pad.query_caps(None)
        media = caps.get_structure(0).get_name()
        if media.startswith("video/"):
            sink = make("fakesink", sync=True, signal_handoffs=True)
            sink.connect("handoff", handoff, "video")
            chain = [make("queue"), make("videoconvert"), sink]
        elif media.startswith("audio/"):
            sink = make("fakesink", sync=True, signal_handoffs=True)
            sink.connect("handoff", handoff, "audio")
            chain = [make("queue"), make("audioconvert"), make("audioresample"), sink]
        else:
            chain = [make("fakesink", sync=False, async_=False)]
        for e in chain:
            pipe.add(e)
        for a, b in zip(chain, chain[1:]):
            a.link(b)
        pad.link(chain[0].get_static_pad("sink"))
        for e in chain:
            e.sync_state_with_parent()

    decode.connect("pad-added", pad_added)
    bus = pipe.get_bus()
    started = time.monotonic()
    if preroll:
        pipe.set_state(Gst.State.PAUSED)
        m = bus.timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.ASYNC_DONE | Gst.MessageType.ERROR)
        if m is None or m.type == Gst.MessageType.ERROR:
            pipe.set_state(Gst.State.NULL)
            return None
    pipe.set_state(Gst.State.PLAYING)
    pipe.get_state(10 * Gst.SECOND)
    playing_after = (time.monotonic() - started) * 1000
    time.sleep(seconds)
    base = pipe.get_base_time()
    pipe.set_state(Gst.State.NULL)
    video, audio = renders["video"], renders["audio"]
    if not video or not audio:
        return {"error": f"video {len(video)}, audio {len(audio)} renders"}

    def early(r):
        return (r[1] - (r[0] - base)) / MS  # + = handed over before its running time

    first_second = [r for r in video if r[1] < Gst.SECOND]
    ahead = [r for r in first_second if early(r) > 20]
    audio_ahead = [r for r in audio if r[1] < Gst.SECOND and early(r) > 20]
    span = (max(r[1] for r in ahead) - min(r[1] for r in ahead)) / MS + 1000 / 15 if ahead else 0
    off = ((video[0][0] - audio[0][0]) - (video[0][1] - audio[0][1])) / MS
    return {"ahead": len(ahead), "of": len(first_second), "span": span,
            "most": max((early(r) for r in video), default=0), "audio_ahead": len(audio_ahead),
            "audio_of": sum(1 for r in audio if r[1] < Gst.SECOND), "off": off, "playing_after": playing_after,
            "stale_base": sum(1 for r in video + audio if r[2] != base)}


def describe(result):
    if result is None:
        return "did not preroll"
    if "error" in result:
        return result["error"]
    return (f"video frames of the first second >20 ms early {result['ahead']}/{result['of']} (covering {result['span']:.0f} ms, "
            f"most {result['most']:.0f} ms early), audio buffers >20 ms early {result['audio_ahead']}/{result['audio_of']}, "
            f"first picture vs its sound {result['off']:+.1f} ms, renders with a base time other than the pipeline's "
            f"{result['stale_base']}, PLAYING after {result['playing_after']:.0f} ms")


def e14():
    out = []
    for load in (False, True):
        children = busy_loops.start(15, count=2) if load else []
        try:
            if children:
                time.sleep(0.3)
            for label, preroll in (("NULL->PLAYING", False), ("NULL->PAUSED->PLAYING", True)):
                out.append(f"{'loaded' if load else 'idle'} {label}: {describe(lesson_run(preroll))}")
        finally:
            busy_loops.stop(children)
    print("§14 lesson.webm (VP8 15 fps + Opus), fakesinks sync=true, 1.5 s after PLAYING: " + "; ".join(out))


EXPERIMENTS = {"§11": e11, "§14": e14}

if __name__ == "__main__":
    experiments.run(EXPERIMENTS)
