#!/usr/bin/env bash
# How much later webrtcdsp's output carries the signal than its input: the voice chain's own
# delay, which a gst-launch floor without a DSP does not pay (#21's budget, "DSP"). Speech
# (espeak-ng) runs through webrtcdsp offline, once per setting, its far end silence through a
# webrtcechoprobe; the lag of the output's cross-correlation peak against the input is printed.
# Needs numpy: PYTHON=.venv/bin/python (scripts/python-venv.sh makes it).
#
#   PYTHON=.venv/bin/python bash scripts/measure/dsp-delay.sh
#   scripts/debian13.sh run env PYTHON=.venv-debian13/bin/python bash scripts/measure/dsp-delay.sh
set -euo pipefail
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
espeak-ng -w "$work/speech.wav" "the student answers the teacher's question about the water cycle"
gst-launch-1.0 -q filesrc location="$work/speech.wav" ! wavparse ! audioconvert ! audioresample \
  ! audio/x-raw,rate=48000,channels=1,format=S16LE ! wavenc ! filesink location="$work/in.wav"
for setting in "NS+HPF:echo-cancel=false noise-suppression=true" \
               "AEC+HPF:echo-cancel=true noise-suppression=false" \
               "AEC+NS+HPF (the voice profile):echo-cancel=true noise-suppression=true" \
               "HPF alone:echo-cancel=false noise-suppression=false"; do
  # shellcheck disable=SC2086 # the setting's properties are separate words
  gst-launch-1.0 -q filesrc location="$work/in.wav" ! wavparse ! audioconvert ! audio/x-raw,rate=48000,channels=1,format=S16LE \
    ! webrtcdsp probe=far ${setting#*:} gain-control=false high-pass-filter=true delay-agnostic=false \
    ! wavenc ! filesink location="$work/out.wav" \
    audiotestsrc wave=silence num-buffers=500 samplesperbuffer=480 ! audio/x-raw,rate=48000,channels=1 \
    ! webrtcechoprobe name=far ! fakesink sync=false
  "${PYTHON:-python3}" - "$work/in.wav" "$work/out.wav" "${setting%%:*}" <<'PY'
import sys, wave
import numpy as np
def samples(path):
    with wave.open(path) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(float)
a, b = samples(sys.argv[1]), samples(sys.argv[2])
n = min(len(a), len(b))
corr = np.fft.irfft(np.fft.rfft(b[:n], 2 * n) * np.conj(np.fft.rfft(a[:n], 2 * n)))
lag = int(np.argmax(corr[:4800]))
print(f"{sys.argv[3]}: output {lag / 48:.2f} ms behind its input ({lag} samples at 48 kHz)")
PY
done
