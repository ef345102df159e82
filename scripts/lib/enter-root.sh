#!/usr/bin/env bash
# in_root's other half (scripts/lib/bare-root.sh), already in a private mount namespace:
#   enter-root.sh ROOT [--ro PATH[:INSIDE]]... [--rw PATH[:INSIDE]]... -- CMD...
set -euo pipefail
root=$1; shift
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"
while [[ $# -gt 0 && $1 != -- ]]; do
  mode=$1 path=${2%%:*} inside=${2#*:}; shift 2
  mkdir -p "$root$inside"
  mount --bind "$path" "$root$inside"
  if [[ $mode == --ro ]]; then mount -o remount,bind,ro "$root$inside"; fi
done
shift
exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive "$@"
