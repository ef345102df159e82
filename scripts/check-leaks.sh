#!/usr/bin/env bash
# Runs the binding and engine tests under GStreamer's `leaks` tracer and fails on any object
# (GstObject or mini object) still alive at gst_deinit. The tests register gst_deinit at exit
# when GST_TRACERS contains "leaks" (GStreamer.deinitializeAtExit).
#
# One upstream leak is allowed, by name: webrtcechoprobe 1.22 makes a latency query for every
# LATENCY event and never unrefs it (gst-launch-1.0 audiotestsrc ! webrtcechoprobe ! fakesink
# leaks 2 GstQuery; without the probe, 0). Everything else counts.
set -euo pipefail
swift=${SWIFT:-swift}
scratch=${SCRATCH:-.build}
log=$(mktemp /tmp/classroom-audio-leaks.XXXXXX.log)
trap 'rm -f "$log" "$log.out"' EXIT

GST_TRACERS=leaks GST_DEBUG=GST_TRACER:7 GST_DEBUG_FILE="$log" GST_DEBUG_NO_COLOR=1 \
  "$swift" test --scratch-path "$scratch" --skip-build --filter 'GStreamerTests|ClassroomEngineTests' \
  --skip 'DeviceMonitorTests|PulseRouteTests' --no-parallel > "$log.out" 2>&1 \
  || { tail -40 "$log.out"; echo "check-leaks: the tests failed under the leaks tracer" >&2; exit 1; }

if ! grep -q "object-alive.class" "$log"; then
  echo "check-leaks: the leaks tracer did not run (no tracer output in the log)" >&2
  exit 1
fi
alive=$(grep "object-alive, type-name=" "$log" | grep -v "new format string" || true)
upstream=$(printf '%s\n' "$alive" | grep -c 'type-name=(string)GstQuery, .*description=(string)"\{0,1\}latency query' || true)
ours=$(printf '%s\n' "$alive" | grep -v 'type-name=(string)GstQuery, .*description=(string)"\{0,1\}latency query' | grep . || true)
if [[ -n "$ours" ]]; then
  count=$(printf '%s\n' "$ours" | wc -l)
  echo "check-leaks: $count GStreamer object(s) leaked:" >&2
  printf '%s\n' "$ours" | sed -E 's/.*type-name=\(string\)([^,]*).*description=\(string\)([^,]*).*ref-count=\(uint\)([0-9]+).*/  \1 \2 refs=\3/' | sort | uniq -c >&2
  exit 1
fi
echo "check-leaks: 0 leaked GStreamer objects of ours ($upstream latency queries leaked by webrtcechoprobe 1.22 itself)."
