#!/usr/bin/python3
"""Re-measures the GStreamer behaviours behind docs/GSTREAMER-WORKAROUNDS.md on whatever
GStreamer this python3-gi loads: run it on Debian 12 (1.22) and in a Debian 13 root (1.26)
and compare the lines. Each experiment prints one line, `§N key=value ...`, with what it saw.

  python3 scripts/measure/gst-workarounds.py [§8 §15 ...]     (default: every experiment)

Needs python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0, gstreamer1.0-plugins-good/bad.
No sound server: the pulsesink entries are measured elsewhere (the entries say how).
"""
import socket
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401

Gst.init(None)
MS = Gst.MSECOND
CAPS = "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved"
FRAME = 480  # 10 ms at 48 kHz


def frame(value):
    return Gst.Buffer.new_wrapped(int(value).to_bytes(2, "little", signed=True) * FRAME)


def first_sample(buffer):
    ok, info = buffer.map(Gst.MapFlags.READ)
    value = int.from_bytes(info.data[0:2], "little", signed=True)
    buffer.unmap(info)
    return value


def pull_all(sink, timeout=2.0):
    out = []
    while True:
        sample = sink.emit("try-pull-sample", int(timeout * Gst.SECOND))
        if sample is None:
            return out
        out.append(sample.get_buffer())


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_bus(pipe, types, timeout):
    return pipe.get_bus().timed_pop_filtered(int(timeout * Gst.SECOND), types)


def e8():
    """audiobuffersplit after a lost 10 ms buffer (no DISCONT): where does the frame after the gap land?"""
    results = []
    for label, props in [("default", ""), ("threshold5ms-wait0", "alignment-threshold=5000000 discont-wait=0"),
                         ("gapless", "gapless=true")]:
        pipe = Gst.parse_launch(f"appsrc name=src format=time caps={CAPS} ! audiobuffersplit output-buffer-duration=1/100 {props} "
                                "! appsink name=sink sync=false")
        src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
        pipe.set_state(Gst.State.PLAYING)
        for i in range(20):
            if i == 5:
                continue  # the lost buffer
            b = frame(i + 1)
            b.pts, b.duration = i * 10 * MS, 10 * MS
            src.emit("push-buffer", b)
        src.emit("end-of-stream")
        frames = pull_all(sink)
        pipe.set_state(Gst.State.NULL)
        after = next((b for b in frames if first_sample(b) == 7), None)
        silence = sum(1 for b in frames if first_sample(b) == 0)
        where = f"{after.pts / MS:.1f}ms" if after else "missing"
        results.append(f"{label}: frame-after-gap pts={where} (true 60.0ms) silent-frames={silence}")
    print("§8 " + "; ".join(results))


def e9():
    """clocksync ts-offset=10 ms behind a source reporting 40 ms of latency: how long after its timestamp is a buffer let through?"""
    pipe = Gst.parse_launch(f"appsrc name=src is-live=true format=time min-latency=40000000 max-latency=40000000 caps={CAPS} "
                            "! clocksync name=cs ts-offset=10000000 sync=true ! fakesink name=sink sync=false")
    src, cs = pipe.get_by_name("src"), pipe.get_by_name("cs")
    waits = []

    def probe(pad, info):
        buffer = info.get_buffer()
        clock = pipe.get_clock()
        if clock is not None:
            now = clock.get_time() - pipe.get_base_time()
            waits.append((now - buffer.pts) / MS)
        return Gst.PadProbeReturn.OK

    cs.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
    pipe.set_state(Gst.State.PLAYING)
    wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 2)
    for i in range(30):
        clock = pipe.get_clock()
        b = frame(1000)
        b.pts, b.duration = clock.get_time() - pipe.get_base_time(), 10 * MS
        src.emit("push-buffer", b)
        time.sleep(0.01)
    time.sleep(0.2)
    pipe.set_state(Gst.State.NULL)
    waits.sort()
    print(f"§9 clocksync ts-offset=10ms, upstream latency 40ms: buffer out {waits[len(waits) // 2]:.1f} ms after its pts (median of {len(waits)}; 10 = offset only, 50 = offset + latency)")


def e10():
    """An async appsink added to a playing pipeline: does the pipeline lose PLAYING?"""
    out = []
    for asynchronous in (True, False):
        pipe = Gst.parse_launch("audiotestsrc is-live=true samplesperbuffer=480 ! fakesink sync=true")
        pipe.set_state(Gst.State.PLAYING)
        wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 2)
        time.sleep(0.3)
        bus = pipe.get_bus()
        while bus.pop():
            pass
        src = Gst.ElementFactory.make("appsrc")
        src.set_property("is-live", True)
        src.set_property("format", Gst.Format.TIME)
        src.set_property("caps", Gst.Caps.from_string(CAPS))
        sink = Gst.ElementFactory.make("appsink")
        sink.set_property("async", asynchronous)
        pipe.add(src)
        pipe.add(sink)
        src.link(sink)
        sink.sync_state_with_parent()
        src.sync_state_with_parent()
        lost = 0
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            m = bus.timed_pop_filtered(100 * MS, Gst.MessageType.STATE_CHANGED | Gst.MessageType.ASYNC_START)
            if m is None:
                continue
            if m.src == pipe and m.type == Gst.MessageType.STATE_CHANGED:
                old, new, _ = m.parse_state_changed()
                if old == Gst.State.PLAYING and new == Gst.State.PAUSED:
                    lost += 1
        _, state, pending = pipe.get_state(0)
        out.append(f"async={str(asynchronous).lower()}: pipeline now {state.value_nick} (pending {pending.value_nick})")
        pipe.set_state(Gst.State.NULL)
    print("§10 " + "; ".join(out))


def e15():
    """appsrc's queued-time figure against its queued bytes after 2 s pushed at once."""
    out = []
    for label, stamp in (("pts set", False), ("do-timestamp", True)):
        pipe = Gst.parse_launch(f"appsrc name=src is-live=true format=time do-timestamp={str(stamp).lower()} max-bytes=100000000 "
                                f"max-time=0 caps={CAPS} ! fakesink sync=true")
        src = pipe.get_by_name("src")
        pipe.set_state(Gst.State.PLAYING)
        for i in range(200):
            b = frame(100)
            if not stamp:
                b.pts = i * 10 * MS
            b.duration = 10 * MS
            src.emit("push-buffer", b)
        queued_bytes = src.get_property("current-level-bytes")
        queued_time = src.get_property("current-level-time")
        pipe.set_state(Gst.State.NULL)
        out.append(f"{label}: current-level-bytes says {queued_bytes / 96:.0f} ms, current-level-time says {queued_time / MS:.0f} ms")
    print("§15 appsrc after 2 s pushed at once: " + "; ".join(out))


def sender(port, pt, packets, drop_every=0):
    pipe = Gst.parse_launch(f"audiotestsrc is-live=true samplesperbuffer=960 num-buffers={packets} wave=sine freq=440 "
                            f"! opusenc frame-size=20 ! rtpopuspay name=pay pt={pt} ! udpsink host=127.0.0.1 port={port} sync=false")
    count = [0]

    def probe(pad, info):
        count[0] += 1
        return Gst.PadProbeReturn.DROP if drop_every and count[0] % drop_every == 0 else Gst.PadProbeReturn.OK

    pipe.get_by_name("pay").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
    return pipe


def receive(port, caps, chain, seconds):
    pipe = Gst.parse_launch(f'udpsrc port={port} caps="{caps}" ! {chain} ! appsink name=sink sync=false')
    sink = pipe.get_by_name("sink")
    got = []

    def on_sample(s):
        b = s.emit("pull-sample").get_buffer()
        got.append(b.get_size())
        return Gst.FlowReturn.OK

    sink.set_property("emit-signals", True)
    sink.connect("new-sample", on_sample)
    return pipe, got


def e18():
    """udpsrc caps without payload, a sender on pt 111: does the jitter buffer pass it?"""
    port = free_port()
    rx, got = receive(port, "application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000",
                      "rtpjitterbuffer ! rtpopusdepay ! opusdec", 0)
    rx.set_state(Gst.State.PLAYING)
    tx = sender(port, 111, 100)
    tx.set_state(Gst.State.PLAYING)
    wait_bus(tx, Gst.MessageType.EOS, 5)
    time.sleep(0.5)
    caps = rx.get_by_name("sink").get_static_pad("sink").get_current_caps()
    tx.set_state(Gst.State.NULL)
    rx.set_state(Gst.State.NULL)
    print(f"§18 pt 111 into udpsrc caps without payload ! rtpjitterbuffer ! rtpopusdepay ! opusdec: {sum(got) / 2 / 2 / 48000:.2f} s decoded of 2.00 s sent")


def e20():
    """Every 10th of 201 packets dropped: how much does opusdec put out, with and without do-lost?"""
    out = []
    for label, jb, dec in [("plc", "rtpjitterbuffer latency=60", "opusdec plc=true"),
                           ("plc+do-lost", "rtpjitterbuffer latency=60 do-lost=true", "opusdec plc=true")]:
        port = free_port()
        rx, got = receive(port, "application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=96",
                          f"{jb} ! rtpopusdepay ! {dec}", 0)
        rx.set_state(Gst.State.PLAYING)
        tx = sender(port, 96, 201, drop_every=10)
        tx.set_state(Gst.State.PLAYING)
        wait_bus(tx, Gst.MessageType.EOS, 8)
        time.sleep(0.6)
        tx.set_state(Gst.State.NULL)
        rx.set_state(Gst.State.NULL)
        out.append(f"{label}: {sum(got) / 4 / 48000:.2f} s out")
    print("§20 201 packets (4.02 s), every 10th dropped: " + "; ".join(out))


def e22():
    """opusdec's reported latency with and without use-inband-fec."""
    out = []
    for fec in ("false", "true"):
        pipe = Gst.parse_launch(f"audiotestsrc is-live=true ! opusenc ! opusdec plc=true use-inband-fec={fec} ! fakesink name=sink")
        pipe.set_state(Gst.State.PLAYING)
        wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 3)
        q = Gst.Query.new_latency()
        pipe.get_by_name("sink").get_static_pad("sink").peer_query(q)
        live, minimum, maximum = q.parse_latency()
        pipe.set_state(Gst.State.NULL)
        out.append(f"use-inband-fec={fec}: min latency {minimum / MS:.1f} ms")
    print("§22 audiotestsrc is-live ! opusenc ! opusdec: " + "; ".join(out))


def e29(starts=100):
    """A force-live audiomixer with chains after it, started as the pipeline chooses its base time and
    with the base time fixed first: in how many starts does a buffer leave before its deadline?"""
    chains = {
        "engine": "audiomixer name=m force-live=true latency=40000000 output-buffer-duration=10000000 ! "
                  "capsfilter caps=audio/x-raw,format=S16LE,rate=48000,channels=2 ! volume ! level ! fakesink sync=false async=false",
        "uplink": f"appsrc is-live=true format=time caps={CAPS} ! audiomixer name=m force-live=true latency=20000000 "
                  "output-buffer-duration=10000000 ! audioconvert ! opusenc ! rtpopuspay ! fakesink",
    }
    out = []
    for chain, description in chains.items():
        for fixed in (False, True):
            bad, worst = 0, 0
            for _ in range(starts):
                pipe = Gst.parse_launch(description)
                clock = Gst.SystemClock.obtain()
                pipe.use_clock(clock)
                mixer = pipe.get_by_name("m")
                latency = mixer.get_property("latency")
                early = []

                def probe(pad, info, pipe=pipe, latency=latency, early=early):
                    buffer = info.get_buffer()
                    if pipe.get_clock() is not None:
                        now = pipe.get_clock().get_time() - pipe.get_base_time()
                        deadline = buffer.pts + buffer.duration + latency
                        if now + 2 * MS < deadline:  # 2 ms for the clock wait's granularity
                            early.append(deadline - now)
                    return Gst.PadProbeReturn.OK

                mixer.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
                if fixed:
                    pipe.set_start_time(Gst.CLOCK_TIME_NONE)
                    pipe.set_base_time(clock.get_time())
                pipe.set_state(Gst.State.PLAYING)
                time.sleep(0.15)
                pipe.set_state(Gst.State.NULL)
                if early:
                    bad += 1
                    worst = max(worst, max(early))
            out.append(f"{chain} {'base time first' if fixed else 'pipeline base time'}: {bad}/{starts} starts early (most {worst / MS:.1f} ms)")
    print("§29 force-live audiomixer's first buffers before their deadline: " + "; ".join(out))


EXPERIMENTS = {"§8": e8, "§9": e9, "§10": e10, "§15": e15, "§18": e18, "§20": e20, "§22": e22, "§29": e29}

if __name__ == "__main__":
    print(f"GStreamer {Gst.version_string()}")
    for name in sys.argv[1:] or EXPERIMENTS:
        try:
            EXPERIMENTS[name]()
        except Exception as error:  # one failed experiment must not hide the others
            print(f"{name} failed: {error!r}")
        sys.stdout.flush()
