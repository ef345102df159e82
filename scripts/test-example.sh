#!/usr/bin/env bash
# Builds examples/embed — a package of its own that depends on this one by path, as an
# integrator's does — and runs it on the samples: the lesson and a classmate mixed into a WAV, the
# processed microphone into another. Both must hold sound; the levels are printed. The Swift snippet
# README.md and docs/INTEGRATING.md show must be the example's marked lines (scripts/snippets.py).
#
#   SCRATCH=.build bash scripts/test-example.sh    (its build goes to $SCRATCH-example)
set -euo pipefail
swift=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$root/${SCRATCH:-.build}-example
out=$root/out/example
cd "$root"
python3 scripts/snippets.py --check
"$swift" build --package-path examples/embed --scratch-path "$scratch"
mkdir -p "$out"
"$scratch/debug/embed" samples/lesson.webm samples/live-feed.ogg samples/student-mic.ogg "$out/mix.wav" "$out/uplink.wav"

mix=$(bash scripts/wav-level.sh "$out/mix.wav")
uplink=$(bash scripts/wav-level.sh "$out/uplink.wav")
echo "FIGURE examples/embed: mix $(soxi -D "$out/mix.wav") s at $mix dBFS RMS, uplink $(soxi -D "$out/uplink.wav") s at $uplink dBFS RMS"
awk -v mix="$mix" -v up="$uplink" 'BEGIN { exit !(mix != "-inf" && mix > -40 && up != "-inf" && up > -50) }' || {
  echo "test-example: the example's WAVs are silent or too quiet (mix $mix dBFS, uplink $uplink dBFS; bounds -40 and -50): the embedded engine did not play or send what it was given." >&2
  exit 1
}
echo "test-example: examples/embed builds against the library products and plays."
