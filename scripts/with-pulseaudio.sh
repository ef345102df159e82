#!/usr/bin/env bash
# Runs a command against a private, deterministic PulseAudio server with one null sink,
# "speaker", as a kiosk without audio hardware would have; stops the server afterwards.
#
#   scripts/with-pulseaudio.sh COMMAND [ARGS...]
#
# The command sees CLASSROOM_AUDIO_PULSE_START: the script that starts this same server again
# (tests kill it with `pulseaudio --kill` to play a sound-server crash).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
runtime=$(mktemp -d /tmp/classroom-audio-pulse.XXXXXX)
chmod 700 "$runtime"
export XDG_RUNTIME_DIR="$runtime"
export PULSE_SERVER="unix:$runtime/pulse/native"
export CLASSROOM_AUDIO_PULSE_START="$here/pulse-server.sh"
unset PULSE_SINK PULSE_SOURCE

stop() {
  pulseaudio --kill >/dev/null 2>&1 || true
  rm -rf "$runtime"
}
trap stop EXIT

bash "$here/pulse-server.sh"
"$@"
