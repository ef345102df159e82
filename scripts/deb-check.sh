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
cache=${CLASSROOM_AUDIO_CACHE:-/var/cache/classroom-audio}
mirror=${KIOSK_MIRROR:-http://deb.debian.org/debian}
die() { echo "deb-check: $*" >&2; exit 1; }

if [[ ${1:-} == __inside ]]; then
  # In the private mount namespace: the overlay's root gets /proc, /dev and the network's resolver.
  merged=$2; shift 2
  mount -t proc proc "$merged/proc"
  mount --rbind /dev "$merged/dev"
  cp /etc/resolv.conf "$merged/etc/resolv.conf"
  exec chroot "$merged" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
fi

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mounts, chroot); run it as root or through sudo."
mkdir -p "$cache"

# kiosk_root CODENAME: the cached bare root of that release, made first when missing; a lock lets
# a check wait for the root that `--root` is making beside the build.
kiosk_root() {
  local codename=$1 base
  base=$cache/kiosk-$codename-$(echo "$mirror" | sha256sum | cut -c1-8)
  exec 9> "$cache/kiosk-$codename.lock"
  flock 9
  if [[ ! -d $base ]]; then
    command -v debootstrap > /dev/null || die "debootstrap is not installed: run 'make setup', or: apt-get install debootstrap"
    echo "deb-check: making a bare $codename root, as a kiosk is (debootstrap minbase from $mirror; a few minutes)" >&2
    rm -rf "$base.partial"
    debootstrap --variant=minbase "$codename" "$base.partial" "$mirror" > "$cache/kiosk-$codename-debootstrap.log" 2>&1 \
      || die "debootstrap failed (log: $cache/kiosk-$codename-debootstrap.log; is $mirror reachable?)"
    printf '#!/bin/sh\nexit 101\n' > "$base.partial/usr/sbin/policy-rc.d"   # no services start in it
    chmod 755 "$base.partial/usr/sbin/policy-rc.d"
    mv "$base.partial" "$base"
  fi
  exec 9>&-
  [[ ! -e $base/opt/swift ]] || die "$base has a Swift toolchain; it must not"
  echo "$base"
}

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
mkdir -p "$work/upper" "$work/work" "$work/merged"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" "$work/merged"
mkdir -p "$work/merged/var/cache/apt/archives" "$work/merged/kiosk"
mount --bind "$archives" "$work/merged/var/cache/apt/archives"
cp "$deb" "$repo/samples/lesson.webm" "$repo/samples/live-feed.ogg" "$work/merged/kiosk/"
inside() { unshare --mount -- bash "$here/deb-check.sh" __inside "$work/merged" "$@"; }

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
