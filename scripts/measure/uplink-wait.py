#!/usr/bin/python3
"""How long the uplink's live audiomixer holds a frame (#21 item 4, GSTREAMER-WORKAROUNDS §24).

UplinkSender's shape: appsrc (live, 10 ms frames pushed every 10 ms, stamped as PushTimeline does:
on the mixer's 10 ms grid, contiguous while they keep coming) [► audiomixer force-live] ► queue ►
opusenc ► rtpopuspay ► udpsink. Per variant, one line: the push -> the frame leaving the mixer (by
timestamp), the encoder's input -> udpsink (the newest input before each packet), frames that did
not come out as pushed, and the silence buffers the mixer made while the microphone was off.

  python3 scripts/measure/uplink-wait.py

Needs python3-gi and gstreamer1.0-plugins-base/good/bad; no sound server. Timings are wall-clock:
run it on a quiet machine.
"""
import bisect
import statistics
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401

Gst.init(None)
FRAME = 10 * Gst.MSECOND


def spread(values):
    values = sorted(values)
    return f"median {statistics.median(values):.2f} p95 {values[int(0.95 * len(values))]:.2f} max {values[-1]:.2f} ms"


def run(name, mixer_latency, ptime=10, seconds=3.0, off=None, late_ms=0.0, grid=True):
    mixer = (f"audiomixer force-live=true latency={mixer_latency} output-buffer-duration={FRAME} ! "
             if mixer_latency is not None else "")
    pipeline = Gst.parse_launch(
        "appsrc name=a is-live=true format=time min-latency=0 max-latency=-1 "
        "caps=audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved ! "
        + mixer + "audio/x-raw,format=S16LE,rate=48000,channels=1 ! queue name=q ! "
        f"opusenc frame-size={ptime} audio-type=voice inband-fec=true packet-loss-percentage=10 ! rtpopuspay ! "
        "udpsink name=u host=127.0.0.1 port=9 sync=false async=false")
    pipeline.use_clock(Gst.SystemClock.obtain())
    source = pipeline.get_by_name("a")
    pushed, mixed, encoder_in, sent, made = {}, {}, [], [], [0]

    def at_queue(pad, info):
        buffer, now = info.get_buffer(), time.monotonic()
        mixed.setdefault(buffer.pts, now)
        encoder_in.append(now)
        if pushed and buffer.pts > min(pushed) and buffer.pts not in pushed:
            made[0] += 1
        return Gst.PadProbeReturn.OK

    def at_udp(pad, info):
        sent.append(time.monotonic())
        return Gst.PadProbeReturn.OK

    pipeline.get_by_name("q").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, at_queue)
    pipeline.get_by_name("u").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, at_udp)
    pipeline.set_state(Gst.State.PLAYING)
    pipeline.get_state(Gst.CLOCK_TIME_NONE)
    time.sleep(0.3)
    data = bytes(bytearray((i * 37) & 0xFF for i in range(960)))
    expected, start, k = None, time.monotonic(), 0
    while time.monotonic() - start < seconds:
        target = start + k * 0.010 + (late_ms / 1000 if k % 7 == 3 else 0)
        while time.monotonic() < target:
            time.sleep(0.0003)
        k += 1
        if off and off[0] <= k * 0.010 < off[1]:
            expected = None  # the microphone is off
            continue
        now = pipeline.get_clock().get_time() - pipeline.get_base_time()
        if expected is not None and abs(expected - now) <= 40 * Gst.MSECOND:
            pts = expected
        else:
            pts = now // FRAME * FRAME if grid else now
        expected = pts + FRAME
        buffer = Gst.Buffer.new_wrapped(data)
        buffer.pts, buffer.duration = pts, FRAME
        pushed[pts] = time.monotonic()
        source.push_buffer(buffer)
    time.sleep(0.3)
    pipeline.set_state(Gst.State.NULL)
    # Off the grid the mixer's buffers have their own timestamps: each frame is out when the buffer holding its end is.
    keys = sorted(mixed)
    wait = []
    for pts, at in pushed.items():
        index = bisect.bisect_right(keys, pts + FRAME - 1) - 1 if not grid else None
        out = mixed.get(pts) if grid else (mixed[keys[index]] if index is not None and 0 <= index < len(keys) else None)
        if out is not None:
            wait.append((out - at) * 1000)
    lost = sum(1 for pts in pushed if pts not in mixed) if grid else 0
    encode = [(t - encoder_in[i]) * 1000 for t in sent for i in [bisect.bisect_right(encoder_in, t) - 1] if i >= 0]
    print(f"{name}, {ptime} ms packets: {len(pushed)} frames; push -> out of the mixer {spread(wait)}; "
          f"encoder input -> udpsink {spread(encode)}; not out as pushed {lost}; silence buffers made "
          + (f"{made[0]}" if grid else "(not counted off the grid)"))


if __name__ == "__main__":
    for ptime in (10, 20):
        run("audiomixer latency 20 ms (UplinkSender)", 20 * Gst.MSECOND, ptime)
        run("audiomixer latency 0", 0, ptime)
        run("no mixer", None, ptime)
    run("audiomixer latency 20 ms, frames off the grid", 20 * Gst.MSECOND, grid=False)
    run("audiomixer latency 20 ms, 1 frame in 7 pushed 5 ms late", 20 * Gst.MSECOND, late_ms=5)
    run("audiomixer latency 0, 1 frame in 7 pushed 5 ms late", 0, late_ms=5)
    run("audiomixer latency 20 ms, microphone off 1.0-2.0 s", 20 * Gst.MSECOND, off=(1.0, 2.0))
    run("no mixer, microphone off 1.0-2.0 s", None, off=(1.0, 2.0))
