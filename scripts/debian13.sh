#!/usr/bin/env bash
# A Debian 13 (trixie: GStreamer 1.26, PipeWire 1.4, webrtcdsp on AEC3) root for the second test
# lane on a Debian 12 machine, with this machine's Swift toolchain. Root only.
#
#   scripts/debian13.sh root          make the root if needed (cached), print its path
#   scripts/debian13.sh run CMD...    run CMD inside it, in this repository at the same path
#   scripts/debian13.sh clean         remove every cached root
#
# DEBIAN13_NETWORK=private gives `run` a network namespace of its own (loopback only): make test
# runs this lane beside the Debian 12 one, and the tests' fixed ports (5004 …) must not meet.
# Without it the command shares the machine's network (apt, pip).
#
# The root is `debootstrap --variant=minbase trixie`, then the toolchain's packages below and what
# `scripts/setup.sh` installs on Debian 13. It lives in $CLASSROOM_AUDIO_CACHE
# (/var/cache/classroom-audio), named by a hash of those package lists and the mirror: a changed
# list makes a new root (and the old one is removed). Making it takes about 3 minutes; a lock
# lets two callers wait for one another instead of making it twice.
#
# `run` works in a private mount namespace (unshare), so every mount goes away with the command,
# however it ends. Inside: the repository at its own path (read-write: builds go to its
# .build-debian13), /opt/swift and /opt/swift-packages read-only (with the machine's git
# `insteadOf` rules for the package mirror), /proc, /sys, /dev (a private /dev/shm), tmpfs /tmp
# and /run (network namespaces made inside are named there; the network itself is the machine's),
# and the machine's own / read-only at /run/host: Debian 13 packages no Janus, and
# scripts/janus-server.sh runs the machine's Debian 12 Janus from there when
# CLASSROOM_AUDIO_JANUS_ROOT=/run/host (set here) — the server the kiosks talk to is another
# system, as it is in a school.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${CLASSROOM_AUDIO_CACHE:-/var/cache/classroom-audio}
mirror=${DEBIAN13_MIRROR:-http://deb.debian.org/debian}
swift_dir=/opt/swift
packages_dir=/opt/swift-packages

# What the Swift toolchain itself needs on Debian 13, and ip and ps for the tests' namespaces and
# servers; the project's own packages come from setup.sh.
mapfile -t toolchain_packages < <(bash "$here/toolchain-packages.sh" trixie)
toolchain_packages+=(iproute2 procps)

die() { echo "debian13: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mounts, chroot); run it as root or through sudo."

root_path() {
  local key
  key=$( { echo "$mirror"; printf '%s\n' "${toolchain_packages[@]}"; bash "$here/setup.sh" --list trixie; } | sha256sum | cut -c1-12)
  echo "$cache/debian13-$key"
}

# Mounts what `run` promises onto ROOT; only ever called inside the private mount namespace.
mount_inside() {
  local root=$1
  mount --make-rprivate /
  # The root a mount point of its own: `ip netns exec` and `ip -n` remount / as a slave and fail
  # on a plain directory (the namespace tests' `ip -n NS addr add` did).
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
  mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
  mount -t tmpfs -o mode=755 tmpfs "$root/run"
  # /run as a booted system has it: the journal tests bind their own socket over /run/systemd.
  mkdir -p "$root/run/host" "$root/run/lock" "$root/run/systemd"
  mount --bind / "$root/run/host"
  mount -o remount,bind,ro "$root/run/host"
  local dir
  for dir in "$swift_dir" "$packages_dir"; do
    [[ -d $dir ]] || continue
    mkdir -p "$root$dir"
    mount --bind "$dir" "$root$dir"
    mount -o remount,bind,ro "$root$dir"
  done
  mkdir -p "$root$repo"
  mount --bind "$repo" "$root$repo"
  # ../shared beside the repository (DESIGN.md and the house rules), when it is there.
  if [[ -d $repo/../shared ]]; then
    local shared
    shared=$(cd "$repo/../shared" && pwd -P)
    mkdir -p "$root$shared" "$root$(dirname "$repo")"
    mount --bind "$shared" "$root$shared"
    mount -o remount,bind,ro "$root$shared"
    [[ -e $root$(dirname "$repo")/shared ]] || ln -s "$shared" "$root$(dirname "$repo")/shared"
  fi
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# Runs CMD in ROOT with a clean environment (a few of the caller's variables kept).
enter() {
  local root=$1; shift
  local keep=() name where=$repo
  # The caller's folder when it is inside the repository (mounted at the same path), else the repository.
  [[ $PWD == "$repo" || $PWD == "$repo"/* ]] && where=$PWD
  for name in CI TERM SWIFT_TEST_ARGS GST_DEBUG CLASSROOM_AUDIO_SOAK_SECONDS; do
    [[ -n ${!name:-} ]] && keep+=("$name=${!name}")
  done
  # pip inside (the bench's PESQ venv) trusts what the machine trusts: behind a TLS-inspecting
  # proxy the machine's bundle holds a CA that Debian 13's own lacks, and pip failed with
  # "self-signed certificate in certificate chain".
  [[ -r /etc/ssl/certs/ca-certificates.crt ]] && keep+=("PIP_CERT=/run/host/etc/ssl/certs/ca-certificates.crt")
  exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH="$swift_dir/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    CLASSROOM_AUDIO_JANUS_ROOT=/run/host CLASSROOM_AUDIO_LANE=debian13 "${keep[@]}" \
    /bin/bash -c 'cd "$1" && shift && exec "$@"' bash "$where" "$@"
}

make_root() {
  local root=$1 staging=$1.partial
  rm -rf "$staging"
  echo "debian13: making $root (debootstrap trixie from $mirror, then the packages; about 3 minutes)" >&2
  # A fresh Debian 12 machine has no debootstrap: installed here, as setup.sh installs what a lane needs.
  if ! command -v debootstrap > /dev/null; then
    apt-get install -y --no-install-recommends debootstrap > "$cache/debootstrap.log" 2>&1 \
      || die "debootstrap is not installed and apt-get could not install it (log: $cache/debootstrap.log); install it with: apt-get install debootstrap"
  fi
  debootstrap --variant=minbase trixie "$staging" "$mirror" > "$cache/debootstrap.log" 2>&1 \
    || die "debootstrap failed (log: $cache/debootstrap.log; is $mirror reachable?)."
  # No services start while packages install (dbus, pipewire and the like).
  printf '#!/bin/sh\nexit 101\n' > "$staging/usr/sbin/policy-rc.d"
  chmod 755 "$staging/usr/sbin/policy-rc.d"
  # The machine's git rules that send Swift packages to the local mirror.
  git config --system --get-regexp '^url\.' 2>/dev/null | while read -r key value; do
    printf '%s\t%s\n' "$key" "$value"
  done > "$staging/etc/classroom-audio-git-rules"
  unshare --mount -- bash "$here/debian13.sh" __inside "$staging" bash -c '
      set -e
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends "$@" > /tmp/toolchain-install.log 2>&1 \
        || { tail -20 /tmp/toolchain-install.log; exit 1; }
      while IFS=$'"'\t'"' read -r key value; do git config --system --add "$key" "$value"; done < /etc/classroom-audio-git-rules
      bash "$0"
    ' "$repo/scripts/setup.sh" "${toolchain_packages[@]}" || die "installing the packages into $staging failed (see above)."
  mv "$staging" "$root"
}

case "${1:-}" in
  root)
    mkdir -p "$cache"
    root=$(root_path)
    exec 9> "$cache/debian13.lock"
    flock 9
    if [[ ! -d $root ]]; then
      for old in "$cache"/debian13-*; do [[ -d $old ]] && rm -rf "$old"; done
      make_root "$root"
    fi
    echo "$root"
    ;;
  run)
    shift
    [[ $# -gt 0 ]] || die "usage: scripts/debian13.sh run CMD [ARGS...]"
    root=$(bash "$here/debian13.sh" root)
    if [[ ${DEBIAN13_NETWORK:-} == private ]]; then
      exec unshare --mount --net -- bash "$here/debian13.sh" __inside "$root" "$@"
    fi
    exec unshare --mount -- bash "$here/debian13.sh" __inside "$root" "$@"
    ;;
  __inside)
    # Only through `run` and make_root: already in the private mount namespace.
    root=$2; shift 2
    mount_inside "$root"
    # In a network namespace of its own (DEBIAN13_NETWORK=private) only loopback, brought up.
    [[ ${DEBIAN13_NETWORK:-} == private ]] && ip link set lo up
    enter "$root" "$@"
    ;;
  clean)
    mkdir -p "$cache"
    exec 9> "$cache/debian13.lock"
    flock 9
    rm -rf "$cache"/debian13-*
    echo "debian13: removed the cached roots in $cache."
    ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
    ;;
esac
