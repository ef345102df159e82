#!/usr/bin/env bash
# `make deb`: classroom-player as a Debian package for this machine's release, for a kiosk that has
# no Swift toolchain: the release build with the Swift runtime linked in (--static-swift-stdlib),
# and Depends from the binary's libraries (dpkg-shlibdeps) plus the GStreamer plugin packages
# that hold the elements the player creates at run time, found on this machine by name.
#
#   scripts/make-deb.sh [OUTDIR]     (out/deb unless given; SWIFT, SCRATCH as the Makefile's)
#
# It installs /usr/bin/classroom-player, the systemd user unit, the settings template as a conffile
# in /etc/classroom-player/, classroom-player(1), bash/zsh/fish completions and
# /usr/share/doc/classroom-player/ (copyright, changelog, the user guide and the secure-room recipe). The version is Release.version with the
# release it is built for (0.9.0~deb12): one package per Debian release.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift=${SWIFT:-swift}
scratch=${SCRATCH:-.build}
out=${1:-out/deb}
die() { echo "make-deb: $*" >&2; exit 1; }

. /etc/os-release
case ${VERSION_CODENAME:-} in
  bookworm) suffix=deb12 ;;
  trixie) suffix=deb13 ;;
  *) die "this machine is ${PRETTY_NAME:-not Debian}; packages are built for Debian 12 (bookworm) and 13 (trixie), each on its own release" ;;
esac
upstream=$(bash scripts/version.sh)
[[ -n $upstream ]] || die "no version in Sources/classroom-player/Release.swift"
version="$upstream~$suffix"
arch=$(dpkg --print-architecture)
maintainer="classroom-audio <classroom-audio@lists.debian.invalid>"

# The elements the player makes at run time, by factory name: the engine's graph, the lesson's
# decoding (WebM, Ogg, MP4, WAV; http(s), rtsp, srt sources), the RTP/SRTP feeds and uplink, and
# the WebRTC room (webrtcbin pulls in nice, dtls and srtp). The package that holds each is a Depends.
elements=(
  appsrc appsink audioconvert audioresample audiomixer audiotestsrc audiobuffersplit volume level
  capsfilter queue tee fakesink filesink clocksync scaletempo videoconvert autovideosink pngenc
  decodebin uridecodebin urisourcebin parsebin matroskademux oggdemux qtdemux wavparse
  vorbisdec opusdec opusenc vp8dec vp9dec avdec_aac avdec_h264
  souphttpsrc rtspsrc srtsrc
  pulsesink pulsesrc wavenc webrtcdsp webrtcechoprobe
  udpsrc udpsink rtpjitterbuffer rtpptdemux rtpopuspay rtpopusdepay rtppcmupay rtppcmapay
  rtppcmudepay rtppcmadepay rtpL16depay alawenc mulawenc alawdec mulawdec srtpenc srtpdec
  webrtcbin nicesrc nicesink dtlssrtpenc dtlssrtpdec
)
plugin_packages=()
for element in "${elements[@]}"; do
  file=$(gst-inspect-1.0 "$element" 2>/dev/null | sed -nE 's/^ *Filename +(.*)$/\1/p' | head -1)
  [[ -n $file ]] || die "no GStreamer element '$element' on this machine: run 'make setup', which installs the plugins the player needs"
  # readlink: with a merged /usr, dpkg knows the file under /usr/lib, GStreamer may say /lib.
  package=$(dpkg -S "$(readlink -f "$file")" | head -1 | cut -d: -f1)
  plugin_packages+=("$package")
done
mapfile -t plugin_packages < <(printf '%s\n' "${plugin_packages[@]}" | sort -u)

echo "make-deb: building classroom-player $version ($arch), release, Swift runtime linked in"
# Full RELRO and BIND_NOW, as Debian builds its binaries. (Debian 13's ld 2.44 still leaves out the
# GNU_RELRO segment for this link: lintian warns hardening-no-relro there.)
"$swift" build --scratch-path "$scratch" -c release --static-swift-stdlib --product classroom-player \
  -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
binary=$scratch/release/classroom-player
# The manual page from the same argument parser as --help.
make --no-print-directory man SWIFT="$swift" SCRATCH="$scratch" > /dev/null

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
package=$stage/classroom-player
install -D -m 755 "$binary" "$package/usr/bin/classroom-player"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$package/usr/bin/classroom-player"
# The unit as shipped, with the package's paths: the binary in /usr/bin, the settings in /etc.
install -d "$package/usr/lib/systemd/user"
sed -e 's|/usr/local/bin/classroom-player|/usr/bin/classroom-player|' \
    -e 's|%h/.config/classroom-player.env|/etc/classroom-player/classroom-player.env|g' \
    -e 's|^#   install -D -m 644 packaging/classroom-player.service.*$|#   (installed by the classroom-player package; the settings are /etc/classroom-player/classroom-player.env)|' \
    -e '/^#   install -D -m 644 packaging\/classroom-player.env/d' \
    -e 's|docs/USER-GUIDE.md|/usr/share/doc/classroom-player/USER-GUIDE.md|' \
    packaging/classroom-player.service > "$package/usr/lib/systemd/user/classroom-player.service"
chmod 644 "$package/usr/lib/systemd/user/classroom-player.service"
install -D -m 644 packaging/classroom-player.env "$package/etc/classroom-player/classroom-player.env"
install -d "$package/usr/share/man/man1"
gzip -9n < out/man/classroom-player.1 > "$package/usr/share/man/man1/classroom-player.1.gz"
install -d "$package/usr/share/bash-completion/completions" "$package/usr/share/zsh/vendor-completions" "$package/usr/share/fish/vendor_completions.d"
# bash-completion sources the script: no #! line.
"$package/usr/bin/classroom-player" --generate-completion-script bash | sed '1{/^#!/d}' > "$package/usr/share/bash-completion/completions/classroom-player"
"$package/usr/bin/classroom-player" --generate-completion-script zsh > "$package/usr/share/zsh/vendor-completions/_classroom-player"
"$package/usr/bin/classroom-player" --generate-completion-script fish > "$package/usr/share/fish/vendor_completions.d/classroom-player.fish"
doc=$package/usr/share/doc/classroom-player
install -D -m 644 packaging/debian/copyright "$doc/copyright"
install -m 644 docs/USER-GUIDE.md docs/SECURE-ROOM.md "$doc/"
gzip -9n < CHANGELOG.md > "$doc/changelog.gz"
# Debian's own changelog of this package: which upstream release, built for which Debian.
date=$(date -R -d "$(sed -nE 's/^## \[[^]]+\] - ([0-9-]+)$/\1/p' CHANGELOG.md | head -1) 12:00")
printf '%s\n' "classroom-player ($version) $VERSION_CODENAME; urgency=medium" "" \
  "  * classroom-audio $upstream for Debian ${VERSION_ID}: see changelog.gz." "" \
  " -- $maintainer  $date" | gzip -9n > "$doc/changelog.Debian.gz"
find "$package" -type d -exec chmod 755 {} +

# Depends: the libraries the binary links (dpkg-shlibdeps reads debian/control), and the plugins.
mkdir -p "$stage/shlibs/debian"
printf 'Source: classroom-player\n\nPackage: classroom-player\nArchitecture: any\n' > "$stage/shlibs/debian/control"
libraries=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "$package/usr/bin/classroom-player" 2>/dev/null | sed -nE 's/^shlibs:Depends=//p')
[[ -n $libraries ]] || die "dpkg-shlibdeps found no libraries for the binary"
# A plugin package the binary already links (libgstreamer1.0-0 holds coreelements) keeps its version.
depends=$libraries
for plugins in "${plugin_packages[@]}"; do
  [[ ", $libraries" == *", $plugins "* || ", $libraries," == *", $plugins,"* ]] || depends+=", $plugins"
done

install -d "$package/DEBIAN"
echo "/etc/classroom-player/classroom-player.env" > "$package/DEBIAN/conffiles"
cat > "$package/DEBIAN/control" <<CONTROL
Package: classroom-player
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$package" | cut -f1)
Depends: $depends
Recommends: pulseaudio | pipewire-pulse
Section: sound
Priority: optional
Description: classroom kiosk audio: a lesson, live RTC audio, the microphone
 classroom-player plays courseware with live RTC audio (the teacher, classmates,
 a Janus room over WebRTC or RTP) mixed in, and sends the student's microphone
 up through echo cancellation, noise suppression and gain control. A session
 controller follows the devices: a microphone plugged in or out switches the
 route and the processing without a gap in the lesson.
 .
 It runs headless, as a systemd user service configured in
 /etc/classroom-player/classroom-player.env, with a control socket, MPRIS,
 journal events and Prometheus metrics.
CONTROL
mkdir -p "$out"
deb=$out/classroom-player_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$package" "$deb" > /dev/null
echo "make-deb: $deb ($(du -h "$deb" | cut -f1)); Depends: $depends"
