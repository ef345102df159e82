#!/usr/bin/python3
"""How far scaletempo's audio swings around its arrival (GSTREAMER-WORKAROUNDS §44).

The lesson's audio chain as LessonBranches builds it (queue ► audioconvert ► audioresample ►
scaletempo ► audioconvert ► audioresample ► appsink sync=true), the lesson played, then a flushing
seek to each rate. Per rate, one line: taking every buffer's samples end to end from the first after
the seek, how far that end runs ahead of (lead) or behind (trail) the running time the buffer arrived
at, and how many buffers came empty.

  python3 scripts/measure/scaletempo-strides.py [samples/lesson.webm]

Needs python3-gi and gstreamer1.0-plugins-base/good; no sound server. Arrival is wall-clock: run it
on a quiet machine.
"""
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

RATES = [0.5, 0.6, 0.75, 0.9, 1.0, 1.25, 1.5, 2.0]
SETTLE = 3  # buffers after the seek's flush that still carry the old rate


def measure(uri, rate):
    pipeline = Gst.parse_launch(
        f"uridecodebin uri={uri} ! queue max-size-time=100000000 max-size-buffers=0 max-size-bytes=0 ! "
        "audioconvert ! audioresample ! scaletempo ! audioconvert ! audioresample ! "
        "audio/x-raw,format=S16LE,rate=48000,channels=2 ! appsink name=sink sync=true emit-signals=true")
    arrivals = []

    def on_sample(sink):
        buffer = sink.emit("pull-sample").get_buffer()
        arrivals.append((pipeline.get_clock().get_time() - pipeline.get_base_time(), buffer.get_size() // 4))
        return Gst.FlowReturn.OK

    pipeline.get_by_name("sink").connect("new-sample", on_sample)
    pipeline.set_state(Gst.State.PLAYING)
    pipeline.get_state(Gst.CLOCK_TIME_NONE)
    time.sleep(0.5)
    _, position = pipeline.query_position(Gst.Format.TIME)
    seeked = len(arrivals)
    pipeline.seek(rate, Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.ACCURATE,
                  Gst.SeekType.SET, position, Gst.SeekType.NONE, -1)
    time.sleep(4)
    pipeline.set_state(Gst.State.NULL)
    end, leads, empty = None, [], 0
    for arrived, frames in arrivals[seeked + SETTLE:]:
        if frames == 0:
            empty += 1
            continue
        end = arrived if end is None else end
        leads.append((end - arrived) / 1e6)
        end += frames * 1e9 / 48000
    print(f"rate {rate}: {len(leads) + empty} buffers ({empty} empty), "
          f"lead up to {max(leads):.1f} ms, trail up to {-min(leads):.1f} ms")


def main():
    Gst.init(None)
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../samples/lesson.webm")
    uri = Gst.filename_to_uri(os.path.abspath(path))
    for rate in RATES:
        measure(uri, rate)


if __name__ == "__main__":
    main()
