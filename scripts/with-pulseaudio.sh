#!/usr/bin/env bash
# Runs a command against a private, deterministic PulseAudio server with one null sink,
# "speaker", as a kiosk without audio hardware would have; stops the server afterwards.
#
#   scripts/with-pulseaudio.sh COMMAND [ARGS...]
#
# The server is the one described in GSTREAMER-NOTES §6: `-n` skips default.pa so no
# role-cork, intended-roles or stream-restore policy interferes; devices are plugged and
# unplugged by the tests with `pactl load-module/unload-module module-null-sink`.
set -euo pipefail

runtime=$(mktemp -d /tmp/classroom-audio-pulse.XXXXXX)
chmod 700 "$runtime"
export XDG_RUNTIME_DIR="$runtime"
export PULSE_SERVER="unix:$runtime/pulse/native"
unset PULSE_SINK PULSE_SOURCE

stop() {
  pulseaudio --kill >/dev/null 2>&1 || true
  rm -rf "$runtime"
}
trap stop EXIT

# Root gets a warning ("not intended to be run as root"), which is expected here.
pulseaudio --daemonize=yes --exit-idle-time=-1 --disallow-exit -n \
  --load=module-native-protocol-unix \
  "--load=module-null-sink sink_name=speaker sink_properties=device.description=Speaker" \
  --log-target=file:"$runtime/pulseaudio.log" 2>/dev/null

for _ in $(seq 1 50); do
  pactl info >/dev/null 2>&1 && break
  sleep 0.1
done
if ! pactl info >/dev/null 2>&1; then
  echo "with-pulseaudio: PulseAudio did not start; its log:" >&2
  cat "$runtime/pulseaudio.log" >&2 || true
  exit 1
fi

"$@"
