#!/usr/bin/env bash
# Installs the Debian packages the project needs, and nothing when all are present, on Debian 12
# (bookworm) or Debian 13 (trixie), read from /etc/os-release. Idempotent; runs `apt-get update`
# only when a package is missing and apt has no lists (or the install fails on stale ones). Works
# as root, or through sudo.
#
#   scripts/setup.sh                    everything: build, play, test, package, benchmark (make test)
#   scripts/setup.sh demo               what building and playing needs, no more (make demo)
#   scripts/setup.sh [demo] --list [CODENAME]
#                                       print those packages for this release (or CODENAME), one a line
#
# One list, in Debian 12's names; what another release calls differently, or does not package,
# is named below it (differs_in_<codename>).
set -euo pipefail

# What building classroom-player and playing a lesson with it needs: make demo installs these alone.
build_and_play=(
  pkg-config                          # SwiftPM finds the C libraries' flags through it
  libgstreamer1.0-dev                 # CGStreamer headers: core, base, controller
  libgstreamer-plugins-base1.0-dev    # app, audio, pbutils headers
  libglib2.0-dev                      # CGio: the D-Bus bindings (MPRIS)
  libssl-dev                          # COpenSSL: the TLS target (Janus over HTTPS) and SRTP's key derivation build against it
  libpulse-dev                        # CPulse: moving our own playback stream (pulsesink 1.22 leaks its lock doing it)
  libsystemd-dev                      # CSystemd: sd_notify (readiness, status, watchdog) and the journal's native protocol
  libcurl4                            # FoundationNetworking's HTTP (Janus's API)
  gstreamer1.0-plugins-base           # appsrc/appsink, audiomixer, volume, decodebin, vorbis, opus
  gstreamer1.0-plugins-good           # level, wavenc, pulsesink/pulsesrc, webm, vp8, rtp
  gstreamer1.0-plugins-bad            # webrtcdsp/webrtcechoprobe, audiobuffersplit, webrtcbin, srtpenc/srtpdec
  gstreamer1.0-nice                   # ICE for webrtcbin (libnice): the room over WebRTC
  gstreamer1.0-libav                  # H.264/AAC lessons
)

# What the tests, the benchmark, the package and the docs need besides: make test installs these too.
for_tests=(
  gstreamer1.0-tools                  # gst-launch-1.0 / gst-inspect-1.0 (pipelines/, debugging)
  tshark                              # the room tests capture what crosses the wire: DTLS and SRTP, no RTP in the clear
  nftables                            # the room tests cut UDP to Janus in its namespace: ICE fails, the room rejoins
  openssl                             # the HTTPS room tests make a CA and a certificate of their own
  gstreamer1.0-plugins-base-apps      # gst-device-monitor-1.0
  pulseaudio                          # a real sound server with null sinks for tests and headless runs
  pulseaudio-utils                    # pactl: plugging and unplugging devices
  espeak-ng                           # speech for tests and samples
  sox                                 # measuring what came out
  dpkg-dev                            # make deb: dpkg-shlibdeps finds the Depends of the binary
  lintian                             # make deb-check: the package as Debian's checker sees it
  debootstrap                         # make deb-check: a bare kiosk root of each release to install the package into
  ffmpeg                              # a second, independent RTP sender (Opus on pt 111, G.711) in the tests
  janus                               # a real conferencing server (AudioBridge) for the room tests and bench
  chromium                            # a real browser teacher in the room tests (headless, a WAV as its microphone)
  libjs-janus-gateway                 # janus.js: that browser's page joins the AudioBridge with Janus's own client
  libjs-webrtc-adapter                # adapter.js, which janus.js expects beside it
  pipewire                            # the second sound server the device and route suites run on
  pipewire-pulse                      # its PulseAudio protocol (pulsesink/pulsesrc, pactl)
  wireplumber                         # its session manager (default sink, routing)
  dbus                                # dbus-run-session: PipeWire's private D-Bus session
  systemd                             # systemd-analyze verify on the unit, in the tests
  playerctl                           # drives the player over MPRIS in the tests, as a desktop would
  dbus-daemon                         # a private session bus for those tests
  dbus-bin                            # dbus-monitor: the tests watch the Seeked signal with it
  libglib2.0-bin                      # gdbus: the D-Bus bindings' tests call the exported object with it
  prometheus                          # promtool check metrics, and a real scraper in the tests
  python3-numpy                       # scripts/room/room.py: the real-time room between speaker and mic
  python3-scipy                       # scripts/room/room.py: its convolution
  python3-gi                          # scripts/room/room.py: its GStreamer pipeline (a latency fixed by timestamps)
  gir1.2-gstreamer-1.0                # … Gst for it
  gir1.2-gst-plugins-base-1.0         # … GstApp for it (appsrc/appsink)
  gir1.2-gst-plugins-bad-1.0          # scripts/measure/webrtcbin-workarounds.py: GstWebRTC (WORKAROUNDS §26-27)
  python3-venv                        # scripts/python-venv.sh: .venv for the PyPI test tooling (make bench's PESQ-WB)
  python3-dev                         # … pesq builds its C extension
  gcc                                 # … with it
)

# What Debian 13 names differently, or does not package: NAME=NEW, or NAME= for none.
differs_in_trixie=(
  libcurl4=libcurl4t64                # the t64 transition (64-bit time_t) renamed it
  janus=                              # Janus is not in Debian 13: the room tests take it from a Debian 12 system (docs/TESTING.md, "Platforms")
  libjs-janus-gateway=                # janus.js comes with Janus, from the same place
)

wanted=all
if [[ ${1:-} == demo ]]; then
  wanted=demo
  shift
fi
packages=("${build_and_play[@]}")
[[ $wanted == demo ]] || packages+=("${for_tests[@]}")

codename=${2:-}
if [[ -z $codename ]]; then
  codename=$( . /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}" ) || codename=""
fi
case "$codename" in
  bookworm) differs=() ;;
  trixie) differs=("${differs_in_trixie[@]}") ;;
  *) echo "setup: Debian release '${codename:-unknown}' is not one this project knows (bookworm, trixie); trying Debian 12's package names." >&2
     differs=() ;;
esac
for change in "${differs[@]}"; do
  old=${change%%=*} new=${change#*=}
  for i in "${!packages[@]}"; do
    [[ ${packages[$i]} == "$old" ]] || continue
    if [[ -n $new ]]; then packages[$i]=$new; else unset 'packages[i]'; fi
  done
done
packages=("${packages[@]}")

if [[ ${1:-} == --list ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} Debian packages for ${codename:-this release} are installed."
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
