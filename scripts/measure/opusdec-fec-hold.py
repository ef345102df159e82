#!/usr/bin/python3
"""How long opusdec really holds a packet with use-inband-fec, against the latency it reports
(GSTREAMER-WORKAROUNDS §22, OpusFECDecoder).

3 s of a live tone in 10 and 20 ms Opus packets (with FEC) ► rtpopuspay ► rtpopusdepay ► opusdec,
with and without use-inband-fec; buffer probes on opusdec's two pads give each packet's time in
(the k-th in against the k-th out), and a LATENCY query on its source pad what it reports
(upstream included).

  python3 scripts/measure/opusdec-fec-hold.py

Needs python3-gi and gstreamer1.0-plugins-base/good; no sound server.
"""
import statistics
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

Gst.init(None)


def run(fec, ptime):
    pipeline = Gst.parse_launch(
        f"audiotestsrc is-live=true num-buffers={3000 // ptime} samplesperbuffer={48 * ptime} ! audio/x-raw,rate=48000,channels=1 ! "
        f"opusenc frame-size={ptime} inband-fec=true packet-loss-percentage=10 ! rtpopuspay ! rtpopusdepay ! "
        f"opusdec name=d plc=true use-inband-fec={'true' if fec else 'false'} ! fakesink sync=false")
    decoder = pipeline.get_by_name("d")
    into, out = [], []
    decoder.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, lambda pad, info: into.append(time.monotonic()) or Gst.PadProbeReturn.OK)
    decoder.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, lambda pad, info: out.append(time.monotonic()) or Gst.PadProbeReturn.OK)
    pipeline.set_state(Gst.State.PLAYING)
    pipeline.get_bus().timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    query = Gst.Query.new_latency()
    decoder.get_static_pad("src").query(query)
    _, minimum, _ = query.parse_latency()
    pipeline.set_state(Gst.State.NULL)
    held = sorted((b - a) * 1000 for a, b in list(zip(into, out))[5:])
    print(f"{ptime} ms packets, use-inband-fec={str(fec).lower()}: {len(into)} in, {len(out)} out; held median "
          f"{statistics.median(held):.1f} ms, p95 {held[int(0.95 * len(held))]:.1f} ms; reports {minimum / 1e6:.1f} ms (upstream included)")


if __name__ == "__main__":
    for ptime in (10, 20):
        for fec in (False, True):
            run(fec, ptime)
