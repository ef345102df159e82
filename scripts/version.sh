#!/usr/bin/env bash
# Prints the version classroom-player --version prints (Sources/classroom-player/Release.swift):
# what make deb, make release and the release-tag check in test-example.sh read.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sed -nE 's/^ *static let version = "([^"]+)".*/\1/p' "$root/Sources/classroom-player/Release.swift"
