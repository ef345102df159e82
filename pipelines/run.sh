#!/usr/bin/env bash
# Runs one pipeline description from this folder with gst-launch-1.0:
#   pipelines/run.sh NAME [gst-launch-1.0 options]
#   e.g. pipelines/run.sh engine-voice -q
#        GST_DEBUG=webrtc*:3 pipelines/run.sh engine-voice -m
# NAME is the file name without .gst. Lines starting with '#' are dropped, exactly as the
# Swift tests do before gst_parse_launch, and the rest is split into words: gst-launch-1.0
# escapes spaces inside each argument (gst_parse_launchv), so a description passed as one
# argument is one token and fails with "syntax error". Descriptions therefore keep every
# property value free of spaces and quotes.
# It runs from the repository root because descriptions use paths relative to it
# (samples/lesson.webm).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  echo "usage: pipelines/run.sh NAME [gst-launch-1.0 options]" >&2
  echo "NAME is one of:" $(cd "$here" && ls *.gst | sed 's/\.gst$//') >&2
  exit 2
fi

name=${1%.gst}
shift
file="$here/$name.gst"
[[ -f $file ]] || { echo "run.sh: no pipeline $file" >&2; exit 2; }

description=$(grep -v '^#' "$file")
cd "$here/.."
# Word splitting is intended (see above); -f stops caps such as audio/x-raw from globbing.
set -f
# shellcheck disable=SC2086
exec gst-launch-1.0 "$@" $description
