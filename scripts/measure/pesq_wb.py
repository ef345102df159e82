#!/usr/bin/env python3
"""PESQ-WB (ITU-T P.862.2) MOS-LQO of each degraded WAV against a reference WAV.

  pesq_wb.py reference.wav degraded.wav [degraded2.wav …]   → one score per line

Both 16-bit mono at any rate that divides down to 16 kHz (48 kHz here); resampled with scipy.
Runs in the project's .venv (scripts/python-venv.sh), which has the `pesq` package.
"""
import sys
import wave
from math import gcd

import numpy as np
import scipy.signal
from pesq import pesq

RATE = 16_000


def read(path):
    with wave.open(path) as w:
        if w.getsampwidth() != 2:
            sys.exit(f"pesq_wb.py: {path} must be 16-bit")
        data = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64)
        data = data.reshape(-1, w.getnchannels())[:, 0]
        rate = w.getframerate()
    common = gcd(rate, RATE)
    return scipy.signal.resample_poly(data, RATE // common, rate // common) / 32768.0


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    reference = read(sys.argv[1])
    for path in sys.argv[2:]:
        print(f"{pesq(RATE, reference, read(path), 'wb'):.3f}")


if __name__ == "__main__":
    main()
