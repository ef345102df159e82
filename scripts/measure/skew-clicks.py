#!/usr/bin/env python3
"""Where the busy minute's clicks come from (#21, GSTREAMER-WORKAROUNDS §7).

A live 500 Hz tone plays into pulsesink on the private server's "speaker" the way the engine's
output does (system clock, buffer-time 30 ms, latency-time 10 ms), with the slave method given,
while `parec` records the speaker's monitor (a plain client, no GStreamer clock in it). Prints
the clicks and dropouts the recording holds (HeardContinuity's judge) beside every clock-skew
correction and resync audiobasesink logged, on one time axis (seconds from the recording's start).

    scripts/with-pipewire.sh python3 scripts/measure/skew-clicks.py [--method skew|none|resample]
        [--seconds 60] [--hog] [--rt] [--drift-tolerance-ms 40] [--relax-after S [--relaxed-ms 40]]
"""
import argparse
import os
import subprocess
import sys
import threading
import time

import gi
import numpy as np

import busy_loops
from sink_events import SinkEvents
from tone_judge import AMPLITUDE, FREQUENCY, RATE, judge

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def describe(samples, at):
    """What happened at a click: the tone's phase (in samples) just before and after, and zero runs near it."""
    index = int(at * RATE)
    period = RATE / FREQUENCY

    def phase(start, length=480):
        window = samples[start:start + length].astype(np.float64)
        t = np.arange(start, start + length)
        c = np.dot(window, np.cos(2 * np.pi * t / period))
        s = np.dot(window, np.sin(2 * np.pi * t / period))
        return (np.arctan2(c, s) / (2 * np.pi) * period) % period

    before, after = phase(index - 700), phase(index + 400)
    shift = (after - before + period / 2) % period - period / 2
    near = samples[index - 480:index + 480]
    zeros, run, longest = 0, 0, 0
    for value in near:
        run = run + 1 if abs(int(value)) < 40 else 0
        longest = max(longest, run)
    return f"phase moved {shift:+.1f} samples (mod {period:.0f}); longest near-silent run {longest} samples"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--method", default="skew", choices=["skew", "none", "resample"])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--hog", action="store_true", help="a busy loop per core at normal priority")
    parser.add_argument("--rt", action="store_true", help="the sink's streaming thread SCHED_RR (as the engine's)")
    parser.add_argument("--drift-tolerance-ms", type=int, default=40)
    parser.add_argument("--relax-after", type=float, help="seconds after PLAYING at which drift-tolerance goes to --relaxed-ms")
    parser.add_argument("--relaxed-ms", type=int, default=40)
    parser.add_argument("--buffer-ms", type=int, default=30)
    parser.add_argument("--latency-time-ms", type=int, default=10, help="pulsesink latency-time (the server stream's minreq)")
    parser.add_argument("--keep", help="keep the parec recording (mono S16LE 48 kHz) at this path")
    args = parser.parse_args()

    Gst.init(None)
    sink_events = SinkEvents()

    pipeline = Gst.parse_launch(
        f"audiotestsrc is-live=true wave=sine freq={int(FREQUENCY)} volume={AMPLITUDE} samplesperbuffer=480 "
        "! audio/x-raw,format=S16LE,rate=48000,channels=2 "
        f"! pulsesink name=sink device=speaker buffer-time={args.buffer_ms * 1000} latency-time={args.latency_time_ms * 1000} "
        f"slave-method={args.method} drift-tolerance={args.drift_tolerance_ms * 1000}")
    pipeline.use_clock(Gst.SystemClock.obtain())
    if args.rt:
        def on_status(bus, message):
            kind, _owner = message.parse_stream_status()
            if kind == Gst.StreamStatusType.ENTER:
                os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(10))
        bus = pipeline.get_bus()
        bus.enable_sync_message_emission()
        bus.connect("sync-message::stream-status", on_status)
    pipeline.set_state(Gst.State.PLAYING)
    if args.relax_after is not None:
        def relax():
            time.sleep(args.relax_after)
            pipeline.get_by_name("sink").set_property("drift-tolerance", args.relaxed_ms * 1000)
        threading.Thread(target=relax, daemon=True).start()
    time.sleep(1.5)

    path = f"/tmp/skew-clicks-{os.getpid()}.raw"
    recorder = subprocess.Popen(["parec", "--device=speaker.monitor", "--format=s16le", f"--rate={RATE}",
                                 "--channels=1", "--latency-msec=10", "--raw", path])
    # The same monitor recorded through GStreamer as the tests do (MonitorListener: pulsesrc, its
    # own pipeline and clock, an appsink), at normal priority, beside parec.
    gst_samples = []
    recorder2 = Gst.parse_launch(
        "pulsesrc device=speaker.monitor ! audioconvert ! audioresample "
        "! audio/x-raw,format=S16LE,rate=48000,channels=1 ! appsink name=out sync=false emit-signals=true")

    def on_sample(sink):
        buffer = sink.emit("pull-sample").get_buffer()
        gst_samples.append(buffer.extract_dup(0, buffer.get_size()))
        return Gst.FlowReturn.OK

    recorder2.get_by_name("out").connect("new-sample", on_sample)
    recorder2.set_state(Gst.State.PLAYING)
    began = time.monotonic()
    hogs = busy_loops.start(args.seconds + 5) if args.hog else []
    time.sleep(args.seconds)
    busy_loops.stop(hogs)
    recorder.terminate()
    recorder.wait()
    recorder2.set_state(Gst.State.NULL)
    pipeline.set_state(Gst.State.NULL)
    first2, dropouts2, clicks2 = judge(np.frombuffer(b"".join(gst_samples), dtype="<i2"))
    print(f"pulsesrc recording: {len(dropouts2)} dropouts, {len(clicks2)} clicks at {[round(c, 3) for c in clicks2[:20]]} "
          f"(its own time axis: it started {first2:.2f} s before the tone's first block there)")

    samples = np.fromfile(path, dtype="<i2")
    if args.keep:
        os.replace(path, args.keep)
    else:
        os.unlink(path)
    first, dropouts, clicks = judge(samples)
    seen = [(at, text) for at, text in sink_events.relative_to(began) if at >= 0]
    corrections = [t for t, text in seen if "clock skew" in text]
    print(f"method={args.method} hog={args.hog} rt={args.rt} buffer={args.buffer_ms} ms "
          f"drift-tolerance={args.drift_tolerance_ms} ms: {len(samples) / RATE:.1f} s recorded, "
          f"{len(dropouts)} dropouts, {len(clicks)} clicks, {len(corrections)} skew corrections, "
          f"{len(seen) - len(corrections)} other warnings")
    print("  clicks at", [round(c, 3) for c in clicks[:20]])
    print("  dropouts at", dropouts[:20])
    for t, text in seen[:40]:
        print(f"  {t:8.3f} {text}")
    # Which correction is nearest each click (the recording trails the sink by its latency).
    for c in clicks[:20]:
        print(f"  click {c:8.3f}: {describe(samples, c)}")
        near = min(corrections, key=lambda t: abs(t - c), default=None)
        print(f"  click {c:8.3f}: nearest correction {'none' if near is None else f'{near - c:+.3f} s'}")


if __name__ == "__main__":
    sys.exit(main())
