#!/usr/bin/env bash
# The RMS level of a WAV in dBFS (sox's stat), one decimal, or -inf when it is silent.
#
#   scripts/wav-level.sh FILE.wav
set -euo pipefail
sox "${1:?usage: scripts/wav-level.sh FILE.wav}" -n stat 2>&1 \
  | awk '/RMS +amplitude/ { if ($3 > 0) printf "%.1f\n", 20 * log($3) / log(10); else print "-inf" }'
