#!/usr/bin/env python3
"""Can the output's lead grow without reopening its sound-server stream? (#47 item 1)

A live tone (or a tick a second) plays into pulsesink on the private server's "speaker" the way the
engine's output does (system clock, latency-time 10 ms), but with the sink's buffer opened at its
largest (--buffer-ms) and the lead the pipeline keeps set with gst_pipeline_set_latency: first
--leads' first value, then each next one every --step seconds, applied with
gst_bin_recalculate_latency while it plays. `parec` records the speaker's monitor.

With --wave sine it prints the dropouts and clicks the recording holds (HeardContinuity's judge)
beside each change; with --wave ticks, when each tick was heard: a lead that grew by 20 ms shows as
one interval of 1.020 s. Also printed: every bus warning (a lead under the sink's minimum is one)
and every underflow pulsesink logs.

    scripts/with-pulseaudio.sh python3 scripts/measure/lead-without-reopen.py [--wave sine|ticks]
        [--buffer-ms 70] [--leads 30,50,70] [--step 3] [--align-ms MS] [--hog]
"""
import argparse
import os
import subprocess
import sys
import time

import gi
import numpy as np

import busy_loops
from sink_events import SinkEvents
from tone_judge import AMPLITUDE, FREQUENCY, RATE, judge

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def tick_onsets(samples):
    """Where each tick begins: the first sample over a tenth of full scale after a second of quiet."""
    loud = np.nonzero(np.abs(samples.astype(np.int32)) > 3_277)[0]
    onsets, last = [], -RATE
    for index in loud:
        if index - last > RATE // 2:
            onsets.append(index / RATE)
        last = index
    return onsets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wave", default="sine", choices=["sine", "ticks"])
    parser.add_argument("--buffer-ms", type=int, default=70)
    parser.add_argument("--leads", default="30,50,70", help="the pipeline latencies, in ms, one after another")
    parser.add_argument("--step", type=float, default=3.0, help="seconds between changes")
    parser.add_argument("--hog", action="store_true", help="a busy loop per core at normal priority")
    parser.add_argument("--align-ms", type=int, help="the sink's alignment-threshold for 300 ms from each change (default: left at 40 ms)")
    args = parser.parse_args()
    leads = [int(value) for value in args.leads.split(",")]

    Gst.init(None)
    sink_events = SinkEvents()

    wave = f"wave=sine freq={int(FREQUENCY)} volume={AMPLITUDE}" if args.wave == "sine" else "wave=ticks freq=1000 volume=0.5"
    pipeline = Gst.parse_launch(
        f"audiotestsrc is-live=true {wave} samplesperbuffer=480 ! audio/x-raw,format=S16LE,rate=48000,channels=2 "
        f"! pulsesink name=sink device=speaker buffer-time={args.buffer_ms * 1000} latency-time=10000")
    pipeline.use_clock(Gst.SystemClock.obtain())
    pipeline.set_latency(leads[0] * Gst.MSECOND)
    bus = pipeline.get_bus()
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    time.sleep(1.5)

    path = f"/tmp/lead-without-reopen-{os.getpid()}.raw"
    recorder = subprocess.Popen(["parec", "--device=speaker.monitor", "--format=s16le", f"--rate={RATE}",
                                 "--channels=1", "--latency-msec=10", "--raw", path])
    began = time.monotonic()
    hogs = busy_loops.start(args.step * len(leads) + 5) if args.hog else []
    changes = []
    for lead in leads[1:]:
        time.sleep(args.step)
        if args.align_ms is not None:
            sink.set_property("alignment-threshold", args.align_ms * Gst.MSECOND)
        pipeline.set_latency(lead * Gst.MSECOND)
        changes.append((time.monotonic() - began, lead, pipeline.recalculate_latency()))
        if args.align_ms is not None:
            time.sleep(0.3)
            sink.set_property("alignment-threshold", 40 * Gst.MSECOND)
    time.sleep(args.step)
    busy_loops.stop(hogs)
    recorder.terminate()
    recorder.wait()
    # No main loop runs here: the bus's warnings are read once it is done (a lead under the sink's minimum is one).
    warnings = []
    while (message := bus.pop_filtered(Gst.MessageType.WARNING)) is not None:
        warnings.append(message.parse_warning()[0].message)
    pipeline.set_state(Gst.State.NULL)
    samples = np.fromfile(path, dtype="<i2")
    os.unlink(path)

    print(f"wave={args.wave} buffer={args.buffer_ms} ms leads={leads} align={args.align_ms} hog={args.hog}: {len(samples) / RATE:.2f} s recorded")
    for text in warnings:
        print(f"  bus warning: {text}")
    for at, lead, applied in changes:
        print(f"  {at:7.3f} s (asked): lead {lead} ms, recalculated: {applied}")
    if args.wave == "sine":
        _first, dropouts, clicks = judge(samples, settle_blocks=30)
        print(f"  {len(dropouts)} dropouts at {dropouts[:20]}")
        print(f"  {len(clicks)} clicks at {[round(c, 3) for c in clicks[:20]]}")
    else:
        onsets = tick_onsets(samples)
        intervals = [round((b - a) * 1000, 1) for a, b in zip(onsets, onsets[1:])]
        print(f"  ticks heard at {[round(o, 3) for o in onsets]}")
        print(f"  intervals (ms) {intervals}")
    # The sink's skew corrections while it settles come in bursts of dozens: counted, not listed.
    seen = sink_events.relative_to(began)
    corrections = [at for at, text in seen if "clock skew" in text]
    print(f"  {len(corrections)} skew corrections, the last at {max(corrections, default=float('nan')):.3f} s")
    for at, text in seen:
        if "clock skew" not in text:
            print(f"  {at:7.3f} s {text}")


if __name__ == "__main__":
    sys.exit(main())
