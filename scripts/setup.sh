#!/usr/bin/env bash
# Installs every Debian package the project needs, and nothing when all are present.
# Idempotent; runs `apt-get update` only when a package is missing and apt has no lists (or
# the install fails on stale ones). Works as root, or through sudo.
set -euo pipefail

packages=(
  pkg-config                          # SwiftPM finds GStreamer's flags through it
  libgstreamer1.0-dev                 # CGStreamer headers: core, base, controller
  libgstreamer-plugins-base1.0-dev    # app, audio, pbutils headers
  gstreamer1.0-tools                  # gst-launch-1.0 / gst-inspect-1.0 (pipelines/, debugging)
  gstreamer1.0-plugins-base           # appsrc/appsink, audiomixer, volume, decodebin, vorbis, opus
  gstreamer1.0-plugins-good           # level, wavenc, pulsesink/pulsesrc, webm, vp8, rtp
  gstreamer1.0-plugins-bad            # webrtcdsp/webrtcechoprobe, audiobuffersplit
  gstreamer1.0-libav                  # H.264/AAC lessons
  gstreamer1.0-plugins-base-apps      # gst-device-monitor-1.0
  pulseaudio                          # a real sound server with null sinks for tests and headless runs
  pulseaudio-utils                    # pactl: plugging and unplugging devices
  espeak-ng                           # speech for tests and samples
  sox                                 # measuring what came out
  python3-numpy                       # scripts/room/room.py: the real-time room between speaker and mic
  python3-scipy                       # scripts/room/room.py: its convolution
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} Debian packages are installed."
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup: missing packages: ${missing[*]}" >&2
  echo "setup: run 'make setup' as root, or install sudo, to install them." >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "setup: installing ${missing[*]}"
if ! compgen -G "/var/lib/apt/lists/*_Packages" >/dev/null; then
  "${as_root[@]}" apt-get update -qq
fi
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  # The package lists may be stale: refresh once and try again.
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: done."
