#!/usr/bin/env python3
"""Burst delays between the two channels of a recording (scripts/measure/mouth-to-ear.sh).

Channel 0 is what was played into the mouth, channel 1 what the ear heard, on one clock. A
burst's onset is its first sample above the threshold after at least 0.5 s below it; its delay is
the ear's first onset from 0 to 900 ms after the mouth's. Prints one JSON line: the delays in ms,
how many bursts were played and how many arrived.
"""
import argparse
import json
import wave

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("wav")
parser.add_argument("--bursts", type=int, required=True)
parser.add_argument("--threshold", type=int, default=1500, help="onset level, of 32767 (the burst peaks near 13000)")
parser.add_argument("--extra", default="{}", help="a JSON object merged into the result")
args = parser.parse_args()

with wave.open(args.wav) as recording:
    rate = recording.getframerate()
    channels = recording.getnchannels()
    samples = np.frombuffer(recording.readframes(recording.getnframes()), dtype=np.int16).reshape(-1, channels)


def onsets(signal):
    found = []
    for index in np.nonzero(np.abs(signal.astype(np.int32)) > args.threshold)[0]:
        if not found or index - last > rate // 2:
            found.append(int(index))
        last = index
    return found


mouth, ear = onsets(samples[:, 0]), onsets(samples[:, 1])
delays, missing = [], []
for number, start in enumerate(mouth):
    later = [onset for onset in ear if 0 <= onset - start < rate * 0.9]
    if later:
        delays.append(round((later[0] - start) * 1000 / rate, 2))
    else:
        missing.append(number)
result = {"delays": delays, "played": len(mouth), "expected": args.bursts, "arrived": len(delays), "missing": missing}
result.update(json.loads(args.extra))
print(json.dumps(result))
