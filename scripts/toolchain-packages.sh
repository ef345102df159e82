#!/usr/bin/env bash
# The Debian packages the Swift toolchain itself needs (swift.org's list for Debian, in each
# release's names), plus git and make to clone the project and run its make targets: what a
# developer's machine has before `make demo` or `make test` installs the project's own packages.
#
#   scripts/toolchain-packages.sh bookworm|trixie     one package a line
set -euo pipefail

case ${1:-} in
  bookworm) gcc=12 ;;
  trixie) gcc=14 ;;
  *) echo "toolchain-packages: usage: scripts/toolchain-packages.sh bookworm|trixie" >&2; exit 64 ;;
esac
printf '%s\n' binutils git libc6-dev libcurl4-openssl-dev libedit2 "libgcc-$gcc-dev" "libstdc++-$gcc-dev" \
  libpython3-dev libsqlite3-0 libxml2-dev libncurses-dev libz3-dev zlib1g-dev tzdata \
  ca-certificates unzip make
