#!/usr/bin/env bash
# WORKAROUNDS §30: how many `pactl move-sink-input` requests the sound server acknowledges and does
# not carry out. A live stream (gst-launch-1.0 into pulsesink) is moved N times between two null
# sinks, each move by a fresh pactl (connect, move, disconnect, as the engine's PulseClient does);
# 1.2 s later, past pipewire-pulse's 1 s "temporary move target" (when it reports the asked sink
# whatever happened), `pactl list short sink-inputs` says where the stream is.
#
#   bash scripts/with-pipewire.sh bash scripts/measure/lost-moves.sh [N]
#   CLASSROOM_AUDIO_PULSE=1 bash scripts/with-pulseaudio.sh bash scripts/measure/lost-moves.sh [N]
#   bash scripts/debian13.sh run bash scripts/with-pipewire.sh bash scripts/measure/lost-moves.sh [N]
set -euo pipefail
moves=${1:-30}
tag=$RANDOM
a=$(pactl load-module module-null-sink sink_name=moves_a_$tag)
b=$(pactl load-module module-null-sink sink_name=moves_b_$tag)
gst-launch-1.0 -q audiotestsrc is-live=true ! pulsesink stream-properties="props,application.name=lost-moves-$tag" >/dev/null 2>&1 &
player=$!
trap 'kill $player 2>/dev/null; pactl unload-module $a; pactl unload-module $b' EXIT
for _ in $(seq 1 50); do
  stream=$(pactl list sink-inputs | awk -v app="lost-moves-$tag" '/^Sink Input #/ { id = substr($3, 2) } $0 ~ "application.name = \"" app "\"" { print id }')
  [[ -n $stream ]] && break
  sleep 0.1
done
[[ -n ${stream:-} ]] || { echo "lost-moves: the test stream never showed on the server" >&2; exit 1; }
sink_id() { pactl list short sinks | awk -v s="$1" '$2 == s { print $1 }'; }
lost=0
for i in $(seq 1 "$moves"); do
  target=$([[ $((i % 2)) == 0 ]] && echo "moves_a_$tag" || echo "moves_b_$tag")
  pactl move-sink-input "$stream" "$target"
  sleep 1.2
  [[ $(pactl list short sink-inputs | awk -v s="$stream" '$1 == s { print $2 }') == $(sink_id "$target") ]] || lost=$((lost + 1))
done
echo "§30 $(pactl info | sed -n 's/^Server Name: //p'): $lost of $moves acknowledged moves not carried out"
