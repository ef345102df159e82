#!/usr/bin/env bash
# Runs `swift test ARGS...` and, when it fails, repeats every failed test and expectation at the
# very end. A test pass prints thousands of lines and CI keeps only the last ones: without this,
# a red run says "1 issue" and not which test or why.
#
# A failed test of a suite listed in scripts/realtime-suites (real-time audio through a sound
# server, measured at the listener) is run once more, alone, and counts as passed only if that run
# passes; the log ends with a RETRIED line naming it and what its first run said. Any other failure,
# or a run that ended without a result file (a crash), fails at once.
#
#   SWIFT=/opt/swift/usr/bin/swift scripts/swift-test.sh --filter ClassroomEngineTests ...
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
swift=${SWIFT:-swift}
work=$(mktemp -d /tmp/classroom-audio-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The arguments without --filter/--skip and their values: the rerun names its own tests.
keep=()
skipped_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --filter|--skip) skipped_args+=("$1" "$2"); shift 2 ;;
    *) keep+=("$1"); shift ;;
  esac
done
set -- "${keep[@]}" "${skipped_args[@]}"

explain() {  # explain LOG ARGS...: what failed, from the log
  local log=$1; shift
  echo
  echo "==== swift test $* failed; what failed, from the log above ===="
  grep -E '✘|recorded an issue|Expectation failed|Fatal error|unexpected signal|error: ' "$log" \
    | grep -v '^✘ Test run with' | tail -n 60
  echo "==== end of what failed ===="
}

"$swift" test "$@" --xunit-output "$work/first.xml" 2>&1 | tee "$work/first.log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0

# Failed tests as "Target.Suite/name()" from Swift Testing's xUnit file; none if it was not written.
failed=$(python3 "$here/failed-tests.py" "$work/first-swift-testing.xml" 2>/dev/null)
realtime=$(grep -v '^#' "$here/realtime-suites" | awk 'NF {print $1}')
retry=()
for test in $failed; do
  suite=${test%%/*}; suite=${suite#*.}
  if ! printf '%s\n' $realtime | grep -qx "$suite"; then retry=(); break; fi
  retry+=("$test")
done
if [ -z "$failed" ] || [ ${#retry[@]} -eq 0 ]; then
  explain "$work/first.log" "$@"
  exit "$status"
fi

echo
echo "==== ${#retry[@]} real-time test(s) failed; each runs once more, alone (scripts/realtime-suites) ===="
filter=$(printf '%s\n' "${retry[@]}" | sed -E 's/[][()^$.*+?{}|\\]/\\&/g' | paste -sd'|')
"$swift" test "${keep[@]}" --filter "$filter" 2>&1 | tee "$work/again.log"
again=${PIPESTATUS[0]}
if [ "$again" -ne 0 ]; then
  explain "$work/first.log" "$@"
  explain "$work/again.log" "${keep[@]}" --filter "$filter"
  exit "$again"
fi
for test in "${retry[@]}"; do
  echo "RETRIED: $test failed its first run and passed alone; the first run said:"
  grep -E 'recorded an issue|Expectation failed' "$work/first.log" | cut -c1-400 | sed 's/^/  /' | head -n 12
done
exit 0
