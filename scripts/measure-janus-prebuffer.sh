#!/usr/bin/env bash
# Measures what the AudioBridge's per-participant prebuffer does on loopback: kiosk A sends a
# steady 1 kHz tone (its microphone, a file) into room 1234 of a private Janus joined with
# ?prebuffer=N; kiosk B records the room's mix; the 10 ms windows of B's recording in which the
# tone falls more than 20 dB under its full level (95th percentile), while A sends, are counted as dropouts.
#
#   scripts/with-pulseaudio.sh bash scripts/measure-janus-prebuffer.sh [SECONDS] [N ...]
#
# TALKER=source: A's microphone is a sound-server source (a null sink's monitor the tone plays
# into in real time) instead of the file. The file microphone sends its packets in pairs, 40 ms
# apart (measured with tshark on loopback: gaps p1 0.3 ms, p99 43 ms); a source sends one per
# 20 ms (p1 19.6, p99 20.3 ms), as a kiosk's microphone does, so the two need different prebuffers.
set -euo pipefail
seconds=${1:-20}; shift || true
prebuffers=${*:-0 1 2 3 6}
root=$(cd "$(dirname "$0")/.." && pwd)
player=$root/.build/debug/classroom-player
work=$(mktemp -d)
trap 'kill $janus 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
bash "$root/scripts/janus-server.sh" "$work/janus" "$port" > "$work/janus.log" 2>&1 &
janus=$!
for _ in $(seq 50); do curl -s -d '{"janus":"info","transaction":"x"}' "http://127.0.0.1:$port/janus" > /dev/null && break; sleep 0.2; done
length=$((seconds + 6))
gst-launch-1.0 -q audiotestsrc num-buffers=$((length * 10)) samplesperbuffer=4800 wave=silence ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! wavenc ! filesink location="$work/silence.wav"
gst-launch-1.0 -q audiotestsrc num-buffers=$((length * 10)) samplesperbuffer=4800 wave=sine freq=1000 volume=0.3 ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! wavenc ! filesink location="$work/tone.wav"
echo '[{"at": 0.2, "do": "mic", "on": true}]' > "$work/mic-on.json"
mic=$work/tone.wav
if [[ ${TALKER:-file} == source ]]; then
    module=$(pactl load-module module-null-sink sink_name=prebuffer_talker)
    trap 'kill $janus ${tone:-} 2>/dev/null || true; pactl unload-module $module 2>/dev/null || true; rm -rf "$work"' EXIT
    gst-launch-1.0 -q audiotestsrc is-live=true wave=sine freq=1000 volume=0.3 ! audio/x-raw,rate=48000,channels=1 \
        ! pulsesink device=prebuffer_talker > /dev/null 2>&1 &
    tone=$!
    mic=prebuffer_talker.monitor
fi
for n in $prebuffers; do
    "$player" play "$work/silence.wav" --room "janus://127.0.0.1:$port/1234?display=listener" --mic none --output "wav:$work/b-$n.wav" \
        --events "$work/b-$n.jsonl" --no-stdin > /dev/null 2>&1 &
    listener=$!
    sleep 2
    "$player" play "$work/silence.wav" --room "janus://127.0.0.1:$port/1234?display=talker&prebuffer=$n" --mic "$mic" \
        --script "$work/mic-on.json" --output null --events "$work/a-$n.jsonl" --no-stdin > /dev/null 2>&1 &
    talker=$!
    wait $talker $listener || true
    python3 - "$work/b-$n.wav" "$n" <<'PY'
import sys, wave, numpy as np
w = wave.open(sys.argv[1]); rate = w.getframerate(); channels = w.getnchannels()
x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(float).reshape(-1, channels)[:, 0] / 32768
window = rate // 100
frames = x[: len(x) // window * window].reshape(-1, window)
t = np.arange(len(frames)) * window / rate
spectrum = np.abs(np.fft.rfft(frames * np.hanning(window), axis=1))
bin1k = int(round(1000 * window / rate))
level = 20 * np.log10(spectrum[:, bin1k - 1 : bin1k + 2].max(axis=1) + 1e-9)
on = level > level.max() - 30
first, last = np.argmax(on), len(on) - 1 - np.argmax(on[::-1])
# The steady part: a second after the tone starts to a second before it ends.
steady = level[first + 100 : last - 100]
# Judged against the tone's full level (95th percentile): a chopped tone has a low median too.
full = np.percentile(steady, 95)
drops = steady < full - 20
runs = np.count_nonzero(np.diff(np.concatenate([[0], drops.astype(int)])) == 1)
print(f"prebuffer {sys.argv[2]}: {len(steady) / 100:.1f} s of tone, full level {full:.1f} dB, median {np.median(steady):.1f} dB; "
      f"{drops.sum()} windows of 10 ms more than 20 dB under it, in {runs} dropouts")
PY
done
