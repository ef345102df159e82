#!/usr/bin/env bash
# Runs `swift test ARGS...` and, when it fails, repeats every failed test and expectation at the
# very end. A test pass prints thousands of lines and CI keeps only the last ones: without this,
# a red run says "1 issue" and not which test or why.
#
#   SWIFT=/opt/swift/usr/bin/swift scripts/swift-test.sh --filter ClassroomEngineTests ...
set -uo pipefail

swift=${SWIFT:-swift}
log=$(mktemp /tmp/classroom-audio-test.XXXXXX)
trap 'rm -f "$log"' EXIT

"$swift" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "==== swift test $* failed (exit $status); what failed, from the log above ===="
  grep -E '✘|recorded an issue|Expectation failed|Fatal error|unexpected signal|error: ' "$log" \
    | grep -v '^✘ Test run with' | tail -n 60
  echo "==== end of what failed ===="
fi
exit "$status"
