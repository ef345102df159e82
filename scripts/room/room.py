#!/usr/bin/python3
"""A classroom in real time, between the engine's speaker and its microphone.

Records what the kiosk plays (a PulseAudio sink's monitor), convolves it with a room impulse
response (direct path at --distance, first-order image sources of a shoebox room, and a diffuse
tail decaying with --rt60), adds room noise and, optionally, a near-end talker, and plays the
result into a null sink whose monitor the engine records as its microphone.

The room's latency is fixed by timestamps, not by how full a pipe happens to be: a block
captured at running time t is played at t + --delay-ms + the rig's own FLOOR_MS (time to
capture, convolve and hand over), whatever the machine's load. A block that comes too late for
its time is dropped by the sink, so a stall costs a gap, never a latency that creeps.

  room.py --source speaker.monitor --sink room-mic --delay-ms 150 [--near near.wav --near-at 8]
  (then SIGUSR1 when the measurement starts: the near-end talker comes --near-at seconds later)

Needs Debian's python3-gi, python3-numpy, python3-scipy and gir1.2-gst-plugins-base-1.0 (scripts/setup.sh).
"""
import argparse
import signal
import sys
import time
import wave

import gi
import numpy as np
import scipy.signal

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402

RATE = 48_000
SOUND = 343.0
# Headroom for capture, convolution and hand-over before a block is due at the sink; part of
# every latency the rig makes (0 ms asked = FLOOR_MS heard).
FLOOR_MS = 40


def impulse_response(distance, rt60, room=(7.0, 6.0, 3.0), seed=1):
    """Direct path + the six first-order images of a shoebox room + an exponential diffuse tail."""
    rng = np.random.default_rng(seed)
    length = int(rt60 * RATE)
    ir = np.zeros(length)
    speaker = np.array([room[0] / 2, 0.5, 1.2])
    mic = speaker + np.array([0.0, distance, 0.0])
    sources = [speaker]
    for axis in range(3):
        for wall in (0.0, room[axis]):
            image = speaker.copy()
            image[axis] = 2 * wall - speaker[axis]
            sources.append(image)
    for index, source in enumerate(sources):
        r = np.linalg.norm(source - mic)
        tap = int(round(r / SOUND * RATE))
        if tap < length:
            ir[tap] += (distance / r) * (1.0 if index == 0 else 0.7)
    # Diffuse tail from the first reflection on: -60 dB after rt60.
    start = int(0.004 * RATE)
    t = np.arange(length - start) / RATE
    tail = rng.standard_normal(length - start) * np.exp(-6.91 * t / rt60) * 0.02
    ir[start:] += tail
    return ir


def read_wav(path):
    with wave.open(path) as w:
        if w.getframerate() != RATE or w.getsampwidth() != 2:
            sys.exit(f"room.py: {path} must be 16-bit 48 kHz (convert it with sox first)")
        data = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64)
        return data.reshape(-1, w.getnchannels())[:, 0]


def active_rms(x):
    """RMS over the 10 ms frames louder than the median one: the talker, not the pauses."""
    frames = x[: len(x) // 480 * 480].reshape(-1, 480)
    power = (frames**2).mean(axis=1)
    return float(np.sqrt(power[power >= np.median(power)].mean()))


class Room:
    """The convolution state and what is added on top; one call per captured block."""

    def __init__(self, ir, near, near_start, noise_rms):
        self.ir = ir
        self.near = near
        self.near_start = near_start
        self.noise_rms = noise_rms
        self.rng = np.random.default_rng(7)
        self.pending = np.zeros(len(ir))
        self.position = 0

    def process(self, x):
        n = len(x)
        if len(self.pending) < len(self.ir) + n:
            self.pending = np.concatenate([self.pending, np.zeros(len(self.ir) + n - len(self.pending))])
        self.pending[: len(self.ir) + n - 1] += scipy.signal.oaconvolve(x, self.ir)
        out = self.pending[:n].copy()
        self.pending[:-n] = self.pending[n:]
        self.pending[-n:] = 0
        out += self.rng.standard_normal(n) * self.noise_rms
        first = self.position - self.near_start
        if len(self.near) and first + n > 0 and first < len(self.near):
            lo, hi = max(first, 0), min(first + n, len(self.near))
            out[lo - first : hi - first] += self.near[lo:hi]
        self.position += n
        return np.clip(out, -32768, 32767).astype(np.int16)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="speaker.monitor")
    parser.add_argument("--sink", default="room-mic")
    parser.add_argument("--delay-ms", type=float, default=0.0, help=f"device latency nobody reports (the rig adds {FLOOR_MS} ms)")
    parser.add_argument("--distance", type=float, default=0.35, help="speaker to mic, metres")
    parser.add_argument("--rt60", type=float, default=0.4)
    parser.add_argument("--room-size", default="7,6,3", help="the shoebox room, width,depth,height in metres")
    parser.add_argument("--seed", type=int, default=1, help="the diffuse tail's noise: another seed, another room")
    parser.add_argument("--echo-gain-db", type=float, default=-6.0, help="direct-path gain")
    parser.add_argument("--noise-dbfs", type=float, default=-65.0)
    parser.add_argument("--near", help="near-end talker, S16 48 kHz WAV")
    parser.add_argument("--near-at", type=float, default=0.0,
                        help="seconds after SIGUSR1, the measurement's start (without one, after the first captured block)")
    parser.add_argument("--near-dbfs", type=float, help="scale the near-end talker to this active speech level (RMS over its louder half)")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()

    Gst.init(None)
    try:
        size = tuple(float(v) for v in args.room_size.split(","))
        assert len(size) == 3 and min(size) > 0
    except (ValueError, AssertionError):
        sys.exit(f"room.py: --room-size is width,depth,height in metres (7,6,3), not {args.room_size!r}")
    ir = impulse_response(args.distance, args.rt60, room=size, seed=args.seed) * 10 ** (args.echo_gain_db / 20)
    near = read_wav(args.near) if args.near else np.zeros(0)
    if len(near) and args.near_dbfs is not None:
        near *= 32768 * 10 ** (args.near_dbfs / 20) / active_rms(near)
    room = Room(ir, near, int(args.near_at * RATE), 32768 * 10 ** (args.noise_dbfs / 20))
    shift = int((args.delay_ms + FLOOR_MS) * Gst.MSECOND)

    caps = f"audio/x-raw,format=S16LE,layout=interleaved,rate={RATE},channels=1"
    pipeline = Gst.parse_launch(
        f"pulsesrc name=ears device={args.source} buffer-time=200000 latency-time=10000 ! {caps} "
        f"! appsink name=heard sync=false async=false max-buffers=200 "
        f"appsrc name=mouth is-live=true format=time caps={caps} min-latency={FLOOR_MS * Gst.MSECOND} "
        f"! pulsesink device={args.sink} buffer-time=40000 latency-time=10000 sync=true async=false "
        f"alignment-threshold={5 * Gst.MSECOND} discont-wait=0"
    )
    # The capture's buffer-time is the sound server's record buffer (pulsesrc asks for it as maxlength):
    # with 20 ms, a 120 ms stall of this process lost that much capture unflagged, and every later
    # block was stamped that much early, so the room's path fell 110 ms for the rest of the run (an
    # ERLE collapse in CI under load); with 200 ms it did not move. Its latency is latency-time's.
    # Neither sink waits to preroll (the player's first block comes only after the recorder's),
    # and the latency is the rig's floor, not whatever the sound server reports today. The player
    # honours every timestamp: by default a sink writes a block up to 40 ms off its time where the
    # last one ended, and a late or lost block then moves the echo path for the rest of the run.
    pipeline.set_latency(FLOOR_MS * Gst.MSECOND)
    heard, mouth = pipeline.get_by_name("heard"), pipeline.get_by_name("mouth")
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    # The caller starts measuring once the sinks play (RoomRig waits out their idle blocks first):
    # the near-end talker is placed from then on.
    marked = {"now": False}
    signal.signal(signal.SIGUSR1, lambda *_: marked.update(now=True))
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        sys.exit(f"room.py: cannot open {args.source} or {args.sink}; are both on the sound server (pactl list short sinks)?")
    bus = pipeline.get_bus()
    ends = time.monotonic() + args.seconds
    try:
        while not stop["now"] and time.monotonic() < ends:
            error = bus.pop_filtered(Gst.MessageType.ERROR)
            if error:
                err, debug = error.parse_error()
                sys.exit(f"room.py: {err.message} ({debug})")
            sample = heard.try_pull_sample(100 * Gst.MSECOND)
            if sample is None:
                continue
            if marked["now"]:
                marked["now"] = False
                room.near_start = room.position + int(args.near_at * RATE)
            block = sample.get_buffer()
            ok, info = block.map(Gst.MapFlags.READ)
            x = np.frombuffer(info.data, dtype=np.int16).astype(np.float64)
            block.unmap(info)
            out = Gst.Buffer.new_wrapped(room.process(x).tobytes())
            out.pts = block.pts + shift
            out.duration = block.duration
            if block.has_flags(Gst.BufferFlags.DISCONT):
                out.set_flags(Gst.BufferFlags.DISCONT)
            mouth.push_buffer(out)
    finally:
        pipeline.set_state(Gst.State.NULL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
