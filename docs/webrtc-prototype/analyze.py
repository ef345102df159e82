#!/usr/bin/python3
"""analyze.py WAV [WAV...]: per file, seconds of audio, RMS dBFS of the last half, the dominant
frequency and the level at 440 Hz and 880 Hz (dB relative to full scale sine)."""
import os, sys, wave
import numpy as np

for path in sys.argv[1:]:
    if not os.path.exists(path):
        print(f"{path}: missing (nothing was received)"); continue
    with open(path, "rb") as f:
        raw = f.read()
    try:
        w = wave.open(path)
        rate, n = w.getframerate(), w.getnframes()
        data = np.frombuffer(w.readframes(n), dtype="<i2")
    except Exception:          # header not finalised (no EOS): raw S16LE mono 48 kHz after 44 bytes
        rate, data = 48000, np.frombuffer(raw[44:len(raw) - (len(raw) - 44) % 2], dtype="<i2")
    x = data.astype(np.float64) / 32768.0
    secs = len(x) / rate
    if len(x) < rate:
        print(f"{path}: {secs:.2f} s of audio: too short"); continue
    tail = x[len(x) // 2:]
    rms = 20 * np.log10(np.sqrt(np.mean(tail ** 2)) + 1e-12)
    spec = np.abs(np.fft.rfft(tail * np.hanning(len(tail)))) / (len(tail) / 4)
    freqs = np.fft.rfftfreq(len(tail), 1 / rate)
    band = lambda f: 20 * np.log10(spec[(freqs > f - 10) & (freqs < f + 10)].max() + 1e-12)
    frames = x[: len(x) // 960 * 960].reshape(-1, 960)             # 20 ms windows
    loud = 20 * np.log10(np.sqrt((frames ** 2).mean(axis=1)) + 1e-12) > -40
    first = int(loud.argmax()) if loud.any() else len(loud)
    gaps = int((~loud[first:]).sum())
    print(f"{path}: first audible 20 ms window at {first * 0.02:.2f} s, silent windows after it: {gaps}")
    print(f"{path}: {secs:.2f} s, rms {rms:.1f} dBFS, peak at {freqs[spec.argmax()]:.0f} Hz, "
          f"440 Hz {band(440):.1f} dB, 880 Hz {band(880):.1f} dB")

# Verdict for run.sh's rx-440.wav / rx-880.wav: each must hold the OTHER kiosk's tone (> -20 dB) and not
# its own (< -50 dB: the AudioBridge mixes everyone but the listener).
import os, re
verdicts = []
for path in sys.argv[1:]:
    m = re.search(r"rx-(\d+)\.wav$", path)
    if not m or not os.path.exists(path):
        continue
    own = int(m.group(1)); other = 880 if own == 440 else 440
    w = wave.open(path); rate = w.getframerate(); x = np.frombuffer(w.readframes(w.getnframes()), "<i2") / 32768.0
    tail = x[len(x) // 2:]
    spec = np.abs(np.fft.rfft(tail * np.hanning(len(tail)))) / (len(tail) / 4); f = np.fft.rfftfreq(len(tail), 1 / rate)
    lvl = lambda hz: 20 * np.log10(spec[(f > hz - 10) & (f < hz + 10)].max() + 1e-12)
    verdicts.append(lvl(other) > -20 and lvl(own) < -50)
print("PASS: each kiosk hears the other's tone and not its own" if verdicts and all(verdicts) else "FAIL")
