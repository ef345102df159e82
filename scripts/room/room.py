#!/usr/bin/env python3
"""A classroom in real time, between the engine's speaker and its microphone.

Reads what the kiosk plays (a PulseAudio sink's monitor, via parec), convolves it with a
room impulse response (direct path at --distance, first-order image sources of a shoebox
room, and a diffuse tail decaying with --rt60), delays it by --delay-ms that no device reports,
adds room noise and, optionally, a near-end talker, and plays the result into a null sink whose
monitor the engine records as its microphone (via pacat). 10 ms blocks, overlap-add.

  room.py --source speaker.monitor --sink room-mic --delay-ms 150 [--near near.wav --near-at 8]
"""
import argparse
import subprocess
import sys
import time
import wave

import numpy as np
import scipy.signal

RATE = 48_000
BLOCK = 480
SOUND = 343.0


def impulse_response(distance, rt60, room=(7.0, 6.0, 3.0), seed=1):
    """Direct path + the six first-order images of a shoebox room + an exponential diffuse tail."""
    rng = np.random.default_rng(seed)
    length = int(rt60 * RATE)
    ir = np.zeros(length)
    speaker = np.array([3.5, 0.5, 1.2])
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
        assert w.getframerate() == RATE and w.getsampwidth() == 2, "near-end speech must be S16 48 kHz"
        data = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64)
        return data.reshape(-1, w.getnchannels())[:, 0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default="speaker.monitor")
    parser.add_argument("--sink", default="room-mic")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="device latency nobody reports")
    parser.add_argument("--distance", type=float, default=0.35, help="speaker to mic, metres")
    parser.add_argument("--rt60", type=float, default=0.4)
    parser.add_argument("--echo-gain-db", type=float, default=-6.0, help="direct-path gain")
    parser.add_argument("--noise-dbfs", type=float, default=-65.0)
    parser.add_argument("--near", help="near-end talker, S16 48 kHz WAV")
    parser.add_argument("--near-at", type=float, default=0.0, help="seconds after start")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()

    ir = impulse_response(args.distance, args.rt60) * 10 ** (args.echo_gain_db / 20)
    near = read_wav(args.near) if args.near else np.zeros(0)
    near_start = int(args.near_at * RATE)
    rng = np.random.default_rng(7)
    noise_rms = 32768 * 10 ** (args.noise_dbfs / 20)

    fmt = ["--raw", "--format=s16le", f"--rate={RATE}", "--channels=1", "--latency-msec=10"]
    # The player first: audio recorded while its stream still connects would wait in the pipe
    # for good, adding a random 150-300 ms to the room's latency (measured).
    play = subprocess.Popen(["pacat", "-d", args.sink] + fmt, stdin=subprocess.PIPE)
    time.sleep(0.5)
    rec = subprocess.Popen(["parec", "-d", args.source] + fmt, stdout=subprocess.PIPE)
    # The unreported latency: silence queued ahead of the room, at no cost per block (inside the
    # impulse response, a 300 ms delay made each block too slow and the latency crept up, measured).
    play.stdin.write(np.zeros(int(args.delay_ms * RATE / 1000), dtype=np.int16).tobytes())
    pending = np.zeros(len(ir) + BLOCK)
    position = 0
    try:
        while position < args.seconds * RATE:
            raw = rec.stdout.read(BLOCK * 2)
            if len(raw) < BLOCK * 2:
                break
            x = np.frombuffer(raw, dtype=np.int16).astype(np.float64)
            pending[: len(ir) + BLOCK - 1] += scipy.signal.oaconvolve(x, ir)
            out = pending[:BLOCK].copy()
            pending[:-BLOCK] = pending[BLOCK:]
            pending[-BLOCK:] = 0
            out += rng.standard_normal(BLOCK) * noise_rms
            first = position - near_start
            if len(near) and first + BLOCK > 0 and first < len(near):
                lo, hi = max(first, 0), min(first + BLOCK, len(near))
                out[lo - first : hi - first] += near[lo:hi]
            play.stdin.write(np.clip(out, -32768, 32767).astype(np.int16).tobytes())
            position += BLOCK
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        rec.terminate()
        try:
            play.stdin.close()
        except BrokenPipeError:
            pass
        play.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
