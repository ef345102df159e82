#!/usr/bin/env bash
# Runs a command against a private PipeWire + WirePlumber + pipewire-pulse stack (Debian 12's
# PipeWire 0.3.65), started headless in a private runtime folder and D-Bus session, with one
# null sink, "speaker" — the second sound server the device and route suites run on. Stops it
# afterwards.
#
#   scripts/with-pipewire.sh COMMAND [ARGS...]
#
# The command sees CLASSROOM_AUDIO_PULSE_START and CLASSROOM_AUDIO_PULSE_KILL: the scripts that
# start this same server again and kill it (tests play a sound-server crash with them), and
# CLASSROOM_AUDIO_SERVER=pipewire.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [[ ${CLASSROOM_AUDIO_IN_DBUS:-} != 1 ]]; then
  export CLASSROOM_AUDIO_IN_DBUS=1
  exec dbus-run-session -- bash "$0" "$@"
fi
runtime=$(mktemp -d /tmp/classroom-audio-pipewire.XXXXXX)
chmod 700 "$runtime"
export XDG_RUNTIME_DIR="$runtime"
# WirePlumber's own state (restore-stream: volumes and each role's last sink) and config stay in
# the run too: left in $HOME they grew with every run (800 lines here) and carried one run's
# targets into the next.
export XDG_STATE_HOME="$runtime/state" XDG_CONFIG_HOME="$runtime/config"
export PULSE_SERVER="unix:$runtime/pulse/native"
export CLASSROOM_AUDIO_PULSE_START="$here/pipewire-server.sh"
export CLASSROOM_AUDIO_PULSE_KILL="$here/pipewire-server.sh kill"
export CLASSROOM_AUDIO_SERVER=pipewire
unset PULSE_SINK PULSE_SOURCE CLASSROOM_AUDIO_IN_DBUS

stop() {
  bash "$here/pipewire-server.sh" kill
  rm -rf "$runtime"
}
trap stop EXIT

bash "$here/pipewire-server.sh"
"$@"
