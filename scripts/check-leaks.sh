#!/usr/bin/env bash
# Runs the GStreamer binding tests under GStreamer's `leaks` tracer and fails on any object
# (GstObject or mini object) still alive at gst_deinit. The tests register gst_deinit at exit
# when GST_TRACERS contains "leaks" (GStreamer.deinitializeAtExit).
set -euo pipefail
swift=${SWIFT:-swift}
scratch=${SCRATCH:-.build}
log=$(mktemp /tmp/classroom-audio-leaks.XXXXXX.log)
trap 'rm -f "$log"' EXIT

GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7 GST_DEBUG_FILE="$log" GST_DEBUG_NO_COLOR=1 \
  "$swift" test --scratch-path "$scratch" --skip-build --filter GStreamerTests > "$log.out" 2>&1 \
  || { tail -40 "$log.out"; rm -f "$log.out"; echo "check-leaks: the tests failed under the leaks tracer" >&2; exit 1; }
rm -f "$log.out"

if ! grep -q "object-alive.class" "$log"; then
  echo "check-leaks: the leaks tracer did not run (no tracer output in the log)" >&2
  exit 1
fi
alive=$(grep "object-alive, type-name=" "$log" || true)
if [[ -n "$alive" ]]; then
  count=$(printf '%s\n' "$alive" | wc -l)
  echo "check-leaks: $count GStreamer object(s) leaked:" >&2
  printf '%s\n' "$alive" | sed -E 's/.*type-name=\(string\)([^,]*).*description=\(string\)([^,]*).*ref-count=\(uint\)([0-9]+).*/  \1 \2 refs=\3/' | sort | uniq -c >&2
  exit 1
fi
echo "check-leaks: 0 leaked GStreamer objects."
