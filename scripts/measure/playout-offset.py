#!/usr/bin/env python3
"""Where a synced pulsesink plays a sample against its running time + latency (#21, GSTREAMER-WORKAROUNDS §34).

One recorder (pulsesrc on speaker.monitor, the system clock) runs throughout while a player
(audiotestsrc ticks every 250 ms of running time -> pulsesink on "speaker", the system clock, as
the engine's output) is started RUNS times. A tick's offset is the absolute clock time the
recording heard it at, minus the player's base time, the tick's running time and the player's
latency. The recorder's own error is the same for every player run, so run-to-run differences are
the player's; EXTRA is more pulsesink properties (e.g. drift-tolerance=10000).

    scripts/with-pulseaudio.sh python3 scripts/measure/playout-offset.py RUNS SECONDS BUFFER_US [EXTRA...]
"""
import sys
import time

import gi
import numpy as np

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

RATE = 48_000
TICK = 250_000_000


def main():
    runs, seconds, buffer_us = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    extra = " ".join(sys.argv[4:])
    Gst.init(None)
    clock = Gst.SystemClock.obtain()
    recorder = Gst.parse_launch("pulsesrc device=speaker.monitor buffer-time=20000 latency-time=10000 "
                                "! audio/x-raw,format=S16LE,rate=48000,channels=1 ! appsink name=s sync=false emit-signals=true")
    recorder.use_clock(clock)
    chunks = []

    def on_sample(sink):
        buffer = sink.emit("pull-sample").get_buffer()
        chunks.append((buffer.pts, np.frombuffer(buffer.extract_dup(0, buffer.get_size()), dtype="<i2")))
        return Gst.FlowReturn.OK

    recorder.get_by_name("s").connect("new-sample", on_sample)
    recorder.set_state(Gst.State.PLAYING)
    time.sleep(1)
    recorder_base = recorder.get_base_time()
    players = []
    for _ in range(runs):
        player = Gst.parse_launch(
            f"audiotestsrc is-live=true wave=ticks tick-interval={TICK} freq=1000 volume=0.5 samplesperbuffer=480 "
            f"! audio/x-raw,rate=48000,channels=1 ! pulsesink device=speaker buffer-time={buffer_us} latency-time=10000 {extra}")
        player.use_clock(clock)
        player.set_state(Gst.State.PLAYING)
        time.sleep(0.5)
        query = Gst.Query.new_latency()
        player.query(query)
        _, latency, _ = query.parse_latency()
        base = player.get_base_time()
        time.sleep(seconds)
        player.set_state(Gst.State.NULL)
        players.append((base, latency, clock.get_time()))
        time.sleep(0.3)
    recorder.set_state(Gst.State.NULL)
    heard = []
    for pts, samples in chunks:
        loud = np.nonzero(np.abs(samples) > 3000)[0]
        if len(loud) == 0:
            continue
        at = recorder_base + pts + loud[0] * 1e9 / RATE
        if not heard or at - heard[-1] >= 100e6:
            heard.append(at)
    for base, latency, end in players:
        offsets = []
        for at in heard:
            if base < at < end:
                running = at - base - latency
                offsets.append(running - round(running / TICK) * TICK)
        print(f"latency {latency / 1e6:.0f} ms: ticks heard beyond it (ms) " + " ".join(f"{o / 1e6:+.1f}" for o in offsets))


if __name__ == "__main__":
    sys.exit(main())
