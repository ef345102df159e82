#!/usr/bin/python3
"""The voice profile's webrtcdsp alone against a far end that never reaches the microphone
(GSTREAMER-WORKAROUNDS §13, "Start-up on 1.26"): the CLI's uplink tests in miniature. The far end
(a 440 Hz sine at 0.05 as the tests' lesson, or --farfile) plays into webrtcechoprobe; the near end
(samples/student-mic.ogg, or --mic) is paced in real time into webrtcdsp (AEC, NS high, high-pass, no
AGC); prints the DSP output's 100 ms RMS windows and how many are above -45 dBFS (the tests' speech).
Run it on Debian 12 (1.22, AEC1) and in the Debian 13 root (1.26, AEC3):

  python3 scripts/measure/aec3-startup.py                    the voice profile
  python3 scripts/measure/aec3-startup.py --raw 1            the microphone itself
  python3 scripts/measure/aec3-startup.py --aec 0            (or --ns 0, --hpf 0, --far silence)
  python3 scripts/measure/aec3-startup.py --lead 1.5         the DSP running 1.5 s before the speech
  the two kiosks: espeak-ng + sox as Fixtures.speech (A 200-900 Hz, B 2000-4000 Hz), then
  python3 scripts/measure/aec3-startup.py --farfile a.wav --mic b.wav --seconds 4.5
"""
import argparse, os, gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst
ap = argparse.ArgumentParser()
ap.add_argument('--aec', type=int, default=1); ap.add_argument('--ns', type=int, default=1)
ap.add_argument('--hpf', type=int, default=1); ap.add_argument('--far', default='sine')
ap.add_argument('--vol', type=float, default=0.05); ap.add_argument('--nslevel', default='high')
ap.add_argument('--seconds', type=float, default=3.0); ap.add_argument('--mic', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../samples/student-mic.ogg'))
ap.add_argument('--raw', type=int, default=0); ap.add_argument('--lead', type=float, default=0); ap.add_argument('--nearvol', type=float, default=1.0); ap.add_argument('--freq', type=int, default=440); ap.add_argument('--farfile', default='')
a = ap.parse_args()
Gst.init(None)
far = f"filesrc location={a.farfile} ! decodebin ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! webrtcechoprobe name=probe ! fakesink sync=true" if a.farfile else f"audiotestsrc is-live=true wave={a.far} freq={a.freq} volume={a.vol} samplesperbuffer=480 ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! webrtcechoprobe name=probe ! fakesink sync=true"
dsp = "identity" if a.raw else f"webrtcdsp probe=probe echo-cancel={a.aec} noise-suppression={a.ns} noise-suppression-level={a.nslevel} high-pass-filter={a.hpf} gain-control=false"
lead = (f"audiotestsrc wave=silence num-buffers={int(a.lead*100)} samplesperbuffer=480 ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! c. " if a.lead else "")
near = (lead + f"filesrc location={a.mic} ! decodebin ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! concat name=c ! volume volume={a.nearvol} "
        f"! clocksync ts-offset=10000000 ! audiobuffersplit output-buffer-duration=1/100 ! {dsp} ! level interval=100000000 post-messages=true ! fakesink sync=false")
p = Gst.parse_launch(far + " " + near)
p.set_state(Gst.State.PLAYING)
bus = p.get_bus(); levels = []
while len(levels) < (a.seconds + a.lead) * 10:
    m = bus.timed_pop_filtered(10 * Gst.SECOND, Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
    if m is None or m.type != Gst.MessageType.ELEMENT:
        if m is not None and m.type == Gst.MessageType.ERROR: print(m.parse_error())
        break
    s = m.get_structure()
    if s.get_name() == 'level':
        levels.append(s.get_value('rms')[0])
p.set_state(Gst.State.NULL)
levels = levels[int(a.lead*10):]
print(f"lead={a.lead} {Gst.version_string()} aec={a.aec} ns={a.ns} hpf={a.hpf} far={a.far} raw={a.raw}: speech {sum(1 for l in levels if l > -45)/10:.1f} s of {len(levels)/10:.1f};",
      " ".join(f"{l:.0f}" for l in levels))
