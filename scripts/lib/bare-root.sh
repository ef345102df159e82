# Sourced by scripts/deb-check.sh and scripts/demo-check.sh: the cached bare roots of each Debian
# release they work in, and the throwaway overlays every check runs on. Root only.
#
# A root lives in $CLASSROOM_AUDIO_CACHE (/var/cache/classroom-audio) and is never changed once
# made: a check mounts an overlay of it (root_overlay), works in it (in_root) and throws it away.

cache=${CLASSROOM_AUDIO_CACHE:-/var/cache/classroom-audio}
mirror=${KIOSK_MIRROR:-http://deb.debian.org/debian}
lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# kiosk_root CODENAME: the cached bare root of that release (debootstrap --variant=minbase,
# nothing else), made first when missing; a lock lets a check wait for the root that another
# caller is making.
kiosk_root() {
  local codename=$1 base
  base=$cache/kiosk-$codename-$(echo "$mirror" | sha256sum | cut -c1-8)
  mkdir -p "$cache"
  exec 9> "$cache/kiosk-$codename.lock"
  flock 9
  if [[ ! -d $base ]]; then
    command -v debootstrap > /dev/null || die "debootstrap is not installed: run 'make setup', or: apt-get install debootstrap"
    echo "making a bare $codename root, as a kiosk is (debootstrap minbase from $mirror; a few minutes)" >&2
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

# root_overlay BASE WORK: mounts a writable overlay of BASE at WORK/merged (WORK is the caller's
# temporary folder; `umount -R WORK/merged` and removing WORK throw it away).
root_overlay() {
  local base=$1 work=$2
  mkdir -p "$work/upper" "$work/work" "$work/merged"
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" "$work/merged"
}

# in_root ROOT [--ro PATH[:INSIDE]]... [--rw PATH[:INSIDE]]... -- CMD...: runs CMD in ROOT with a
# clean environment, in a private mount namespace (every mount goes with it): /proc, /dev, the
# machine's resolver, and each PATH of the machine, read-only or writable, at INSIDE (else the same path).
in_root() {
  unshare --mount -- bash "$lib_dir/enter-root.sh" "$@"
}
