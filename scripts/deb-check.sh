#!/usr/bin/env bash
# Installs a classroom-player package the way a kiosk does, in a clean minbase root of its Debian
# release that has no Swift toolchain, and checks that it runs there: --version, probe on the
# sample lesson, the sample lesson with its live feed into a WAV (its level checked here), and
# that `apt-get purge` leaves none of the package's files behind. Root only.
#
#   scripts/deb-check.sh out/deb/classroom-player_0.9.0~deb12_amd64.deb
#   scripts/deb-check.sh --root bookworm|trixie     only make (or find) the bare root
#
# The root (debootstrap --variant=minbase, nothing else) is cached in $CLASSROOM_AUDIO_CACHE
# (/var/cache/classroom-audio) and never changed: each check runs on an overlay of it, thrown away
# after, with the downloaded packages kept beside it for the next time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "deb-check: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mounts, chroot); run it as root or through sudo."
# shellcheck source=lib/bare-root.sh
. "$here/lib/bare-root.sh"

# --root CODENAME: only make (or find) the root; make test does it beside the build.
if [[ ${1:-} == --root ]]; then
  kiosk_root "${2:?usage: scripts/deb-check.sh --root bookworm|trixie}"
  exit
fi

deb=${1:?usage: scripts/deb-check.sh PACKAGE.deb}
[[ -f $deb ]] || die "no package at $deb; make one with: make deb"
codename=$(dpkg-deb -f "$deb" Version | sed -nE 's/.*~deb12$/bookworm/p; s/.*~deb13$/trixie/p')
[[ -n $codename ]] || die "$deb is for no Debian release this checks (its version ends in ~deb12 or ~deb13)"
base=$(kiosk_root "$codename")
archives=$cache/kiosk-$codename-archives
mkdir -p "$archives"

work=$(mktemp -d)
cleanup() { umount -R "$work/merged" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
root_overlay "$base" "$work"
mkdir -p "$work/merged/kiosk"
cp "$deb" "$repo/samples/lesson.webm" "$repo/samples/live-feed.ogg" "$work/merged/kiosk/"
inside() { in_root "$work/merged" --rw "$archives:/var/cache/apt/archives" -- "$@"; }

name=$(basename "$deb")
echo "deb-check: apt-get install ./$name in a bare $codename root"
inside bash -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends ./kiosk/$name > /kiosk/install.log 2>&1" \
  || { tail -20 "$work/merged/kiosk/install.log"; die "apt-get install ./$name failed in the $codename root"; }
swift_libraries=$(inside ldd /usr/bin/classroom-player | grep -c -i swift || true)
[[ $swift_libraries -eq 0 ]] || die "the installed binary still needs Swift libraries: $(inside ldd /usr/bin/classroom-player | grep -i swift)"
version=$(inside classroom-player --version)
echo "deb-check: classroom-player --version: $version"
inside classroom-player probe /kiosk/lesson.webm > "$work/probe.txt" || { cat "$work/probe.txt"; die "probe on the sample lesson failed in the $codename root"; }
grep -q '^Verdict: *can play' "$work/probe.txt" || { cat "$work/probe.txt"; die "probe says the sample lesson cannot play in the $codename root"; }
inside classroom-player play /kiosk/lesson.webm --live /kiosk/live-feed.ogg --mic none --output wav:/kiosk/mix.wav --no-stdin --no-mpris > "$work/play.txt" 2>&1 \
  || { tail -20 "$work/play.txt"; die "the sample lesson with its live feed failed in the $codename root"; }
level=$(bash "$here/wav-level.sh" "$work/merged/kiosk/mix.wav")
seconds=$(soxi -D "$work/merged/kiosk/mix.wav")
echo "FIGURE deb-check $codename: $version; probe: $(grep -E '^(Duration|Verdict):' "$work/probe.txt" | tr -s ' ' | paste -sd ';' -); the sample lesson with its live feed: $seconds s at $level dBFS RMS"
awk -v level="$level" 'BEGIN { exit !(level != "-inf" && level > -40) }' || die "the sample lesson played silent in the $codename root ($level dBFS)"
inside dpkg -L classroom-player > "$work/files.txt"
inside apt-get purge -y -qq classroom-player > /dev/null
left=()
while read -r path; do
  target=$work/merged$path
  if [[ -d $target && ! -L $target ]]; then
    # Folders others share (/usr/bin …) stay; the package's own must go.
    case $path in /etc/classroom-player|/usr/share/doc/classroom-player) left+=("$path") ;; esac
  elif [[ -e $target || -L $target ]]; then
    left+=("$path")
  fi
done < "$work/files.txt"
[[ ${#left[@]} -eq 0 ]] || die "apt-get purge left these behind: ${left[*]}"
echo "deb-check: $name installs, runs and purges cleanly in a bare $codename root."
