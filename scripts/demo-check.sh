#!/usr/bin/env bash
# Proves the README's first command on a bare machine: clones this repository into a minbase root
# of a Debian release that has only what the Swift toolchain itself needs (and git and make), and
# runs `make demo` there as a newcomer would (CI=true, no stdin, no sound server): it must install
# what it needs, build and write the sample lesson into out/demo.wav, whose level is checked here.
# Root only.
#
#   scripts/demo-check.sh bookworm|trixie
#   scripts/demo-check.sh --root bookworm|trixie     only make (or find) the root
#
# What is cloned is the repository's HEAD: a commit, as a newcomer gets it, not the work tree.
# The root is the bare kiosk root (scripts/lib/bare-root.sh) plus scripts/toolchain-packages.sh,
# cached under a hash of that list and never changed; each check runs on a throwaway overlay of it,
# with the downloaded packages kept beside it. The toolchain is this machine's /opt/swift, read-only,
# with the machine's git rules that send Swift packages to the local mirror.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { echo "demo-check: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mounts, chroot); run it as root or through sudo."
# shellcheck source=lib/bare-root.sh
. "$here/lib/bare-root.sh"

only_root=
[[ ${1:-} == --root ]] && { only_root=1; shift; }
codename=${1:-}
case $codename in
  bookworm|trixie) ;;
  *) die "usage: scripts/demo-check.sh [--root] bookworm|trixie" ;;
esac
swift_dir=/opt/swift
[[ -x $swift_dir/usr/bin/swift ]] || die "no Swift toolchain at $swift_dir to build with"
toolchain=$(bash "$here/toolchain-packages.sh" "$codename")
git_rules=$(git config --system --get-regexp '^url\.' 2>/dev/null || true)
mounts=(--ro "$swift_dir")
[[ -d /opt/swift-packages ]] && mounts+=(--ro /opt/swift-packages)

# builder_root: the bare root with the toolchain's packages, made once per list.
builder_root() {
  local kiosk key base
  kiosk=$(kiosk_root "$codename")
  key=$( { echo "$kiosk"; echo "$toolchain"; echo "$git_rules"; } | sha256sum | cut -c1-8)
  base=$cache/builder-$codename-$key
  exec 8> "$cache/builder-$codename.lock"
  flock 8
  if [[ ! -d $base ]]; then
    echo "demo-check: making a $codename root with what Swift needs (once; a few minutes)" >&2
    rm -rf "$base.partial" "$cache/builder-$codename"-*
    cp -a "$kiosk" "$base.partial"
    mkdir -p "$cache/builder-$codename-archives"
    # shellcheck disable=SC2086 # one package a word
    in_root "$base.partial" --rw "$cache/builder-$codename-archives:/var/cache/apt/archives" -- bash -c '
        set -e
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "$@" > /tmp/toolchain.log 2>&1 || { tail -20 /tmp/toolchain.log; exit 1; }
        rm -f /tmp/toolchain.log' bash $toolchain \
      || die "installing what Swift needs into $base.partial failed (see above)"
    while read -r rule value; do
      [[ -n $rule ]] && chroot "$base.partial" git config --system --add "$rule" "$value"
    done <<< "$git_rules"
    mv "$base.partial" "$base"
  fi
  exec 8>&-
  echo "$base"
}

base=$(builder_root)
if [[ -n $only_root ]]; then
  echo "$base"
  exit
fi
archives=$cache/builder-$codename-archives
work=$(mktemp -d)
cleanup() { umount -R "$work/merged" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
root_overlay "$base" "$work"
head=$(git -C "$repo" rev-parse --short HEAD)
inside() { in_root "$work/merged" --rw "$archives:/var/cache/apt/archives" --ro "$repo:/src" "${mounts[@]}" -- "$@"; }

echo "demo-check: make demo from a clone of $head in a bare $codename root with only what Swift needs"
started=$(date +%s)
# safe.directory: the clone's source belongs to whoever checked it out, not to this root's root.
status=0
inside bash -c 'git -c safe.directory="*" clone -q /src /root/classroom-audio && cd /root/classroom-audio && CI=true make demo' \
  < /dev/null > "$work/demo.txt" 2>&1 || status=$?
seconds=$(( $(date +%s) - started ))
if [[ $status -ne 0 ]]; then
  tail -30 "$work/demo.txt"
  die "make demo failed in a bare $codename root (exit $status, after $seconds s; the end of its output is above)"
fi
wav=$work/merged/root/classroom-audio/out/demo.wav
[[ -f $wav ]] || { tail -30 "$work/demo.txt"; die "make demo exited 0 but wrote no out/demo.wav in the $codename root (there is no sound server in it)"; }
level=$(bash "$here/wav-level.sh" "$wav")
length=$(soxi -D "$wav")
installed=$(grep -aE '^setup: installing' "$work/demo.txt" | wc -w)
echo "FIGURE demo-check $codename: make demo from a clone in $seconds s (setup installed $(( installed > 2 ? installed - 2 : 0 )) packages, then built and played); out/demo.wav: $length s at $level dBFS RMS"
awk -v level="$level" 'BEGIN { exit !(level != "-inf" && level > -40) }' \
  || { tail -30 "$work/demo.txt"; die "make demo's out/demo.wav is silent in the $codename root ($level dBFS)"; }
echo "demo-check: make demo installs, builds and plays from a clone in a bare $codename root."
