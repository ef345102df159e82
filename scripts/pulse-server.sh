#!/usr/bin/env bash
# Starts the private PulseAudio server of scripts/with-pulseaudio.sh in $XDG_RUNTIME_DIR, with
# one null sink, "speaker", and waits until it answers. Tests call it again (through
# $CLASSROOM_AUDIO_PULSE_START) to bring the server back after killing it.
#
# The server is the one described in GSTREAMER-NOTES §6: `-n` skips default.pa so no
# role-cork, intended-roles or stream-restore policy interferes; devices are plugged and
# unplugged by the tests with `pactl load-module/unload-module module-null-sink`.
set -euo pipefail
: "${XDG_RUNTIME_DIR:?pulse-server.sh needs XDG_RUNTIME_DIR (see scripts/with-pulseaudio.sh)}"

# Root gets a warning ("not intended to be run as root"), which is expected here.
pulseaudio --daemonize=yes --exit-idle-time=-1 --disallow-exit -n \
  --load=module-native-protocol-unix \
  "--load=module-null-sink sink_name=speaker sink_properties=device.description=Speaker" \
  --log-target=file:"$XDG_RUNTIME_DIR/pulseaudio.log" 2>/dev/null

for _ in $(seq 1 50); do
  pactl info >/dev/null 2>&1 && exit 0
  sleep 0.1
done
echo "pulse-server: PulseAudio did not start; its log:" >&2
cat "$XDG_RUNTIME_DIR/pulseaudio.log" >&2 || true
exit 1
