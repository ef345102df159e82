#!/usr/bin/python3
"""decodebin2's lost demuxer error (docs/GSTREAMER-WORKAROUNDS.md §32), counted on whatever
GStreamer this python3-gi loads: renders the MP4 ReliabilityTests cuts at 40 % (before its moov),
opens it N times with uridecodebin to PAUSED, and counts the opens that failed (the error reached
the bus), prerolled, or did neither within 3 s. For each stuck one it prints the demuxer's state:
its sink pad's task, its last flow and its number of source pads.

  taskset -c 1 /usr/bin/python3 scripts/measure/decodebin-lost-error.py [N]     (default 300)

Pinned to one CPU the demuxer's loop often runs before decodebin lifts its error filter; on an
idle machine with two cores it rarely does.
"""
import os
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

Gst.init(None)


def render_truncated(path):
    pipeline = Gst.parse_launch(
        "videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120,framerate=15/1 ! openh264enc ! h264parse "
        f"! mp4mux name=mux ! filesink location={path} "
        "audiotestsrc num-buffers=40 ! audio/x-raw,rate=48000 ! avenc_aac ! aacparse ! mux.")
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message is None or message.type != Gst.MessageType.EOS:
        sys.exit("rendering the test MP4 failed (openh264enc, avenc_aac and mp4mux are needed)")
    with open(path, "rb") as whole:
        data = whole.read()
    with open(path, "wb") as cut:
        cut.write(data[: len(data) * 2 // 5])


def open_once(uri):
    pipeline = Gst.Pipeline.new()
    decode = Gst.ElementFactory.make("uridecodebin", "decode")
    decode.set_property("uri", uri)
    pipeline.add(decode)
    pipeline.set_state(Gst.State.PAUSED)
    message = pipeline.get_bus().timed_pop_filtered(3 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.ASYNC_DONE)
    stuck = None
    if message is None:
        elements = []
        decode.iterate_recurse().foreach(elements.append)
        for element in elements:
            factory = element.get_factory()
            if factory and "Demux" in factory.get_metadata("klass"):
                sink = element.get_static_pad("sink")
                stuck = (f"{factory.get_name()}: task {sink.get_task_state().value_nick}, last flow "
                         f"{sink.get_last_flow_return().value_nick}, {len(element.srcpads)} source pads")
        outcome = "stuck"
    else:
        outcome = "error" if message.type == Gst.MessageType.ERROR else "prerolled"
    pipeline.set_state(Gst.State.NULL)
    return outcome, stuck


def main():
    opens = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "truncated.mp4")
        render_truncated(path)
        counts = {"error": 0, "prerolled": 0, "stuck": 0}
        states = {}
        for _ in range(opens):
            outcome, stuck = open_once(Gst.filename_to_uri(path))
            counts[outcome] += 1
            if stuck:
                states[stuck] = states.get(stuck, 0) + 1
    print(f"§32 {Gst.version_string()}, {opens} opens of an MP4 cut before its moov: "
          f"{counts['error']} failed, {counts['prerolled']} prerolled, {counts['stuck']} neither within 3 s"
          + "".join(f"; {n} stuck with {state}" for state, n in states.items()))


main()
