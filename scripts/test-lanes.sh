#!/usr/bin/env bash
# `make test`: every lane, each reported on its own. A lane is one platform the project supports:
#
#   debian12   GStreamer 1.22, PipeWire 0.3.65, webrtcdsp on WebRTC's AEC1 (0.3 library)
#   debian13   GStreamer 1.26, PipeWire 1.4, webrtcdsp on AEC3 (libwebrtc-audio-processing-1)
#
# On a Debian 12 machine, with `all`, both run: debian12 here, debian13 in scripts/debian13.sh's
# root (made once, cached; root, or sudo, for it). On a Debian 13 machine its own lane runs here;
# the root is never needed.
#
#   scripts/test-lanes.sh all       both lanes on Debian 12 (make test; its closing table times each pass)
#   scripts/test-lanes.sh native    this machine's lane alone (make test LANES=native)
#   LOAD=1 scripts/test-lanes.sh …  with one core kept busy beside the run (make test LOAD=1)
#
# How two lanes share 2 cores (measured; docs/TESTING.md, "Platforms"):
#   1. debian12's build, while the Debian 13 root and the bare roots the packages and make demo are
#      checked in are found (or made, first time: apt and dpkg);
#   2. debian13's build, quick pass, example, package and make demo in a bare root, beside
#      debian12's work that is not judged in real time: its quick pass (parallel already), the
#      session model without GStreamer, the example, the docs, its package (make deb, deb-check)
#      and make demo in a bare root (demo-check);
#   3. one lane's engine pass, then the first part of its CLI suites (CLI_PART=a), beside the other
#      lane's second part (b, with the room suites), then the other way round: their tests wait on
#      real time far more than they compute (the CPU was 63-97 % idle with both running, vmstat
#      every 5 s), and every thread that feeds the engine or the sound server is real-time
#      (SCHED_RR), so each pass passed beside the other as it does alone;
#   4. the device passes, one at a time, nothing beside them: their busy half-minute runs a CPU hog on
#      both cores, which would starve the other lane's test processes (normal priority) too.
# No build runs beside a real-time pass, not even at the lowest CPU priority: a build also costs
# memory bandwidth and disk writes, which no CPU priority holds back (docs/TESTING.md).
# The leak check rides on each lane's quick and engine passes (LEAKS=1: those passes run under
# GStreamer's leaks tracer and fail on a leak), not a third run of the same tests; its two allowed
# upstream leaks are the same on 1.22.0 and 1.26.2 (scripts/check-leaks.sh).
# Pure-Swift suites (ClassroomAudioTests, the standalone session package) behave the same on both
# and run in debian12 only; everything touching GStreamer runs in both.
#
# Output comes as it runs for the pass on the left of each pair; the pass beside it goes to
# out/lanes/LANE-PASS.log and is printed after it. The end is a table: lane, pass, result,
# minutes, and Swift Testing's count line.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
swift=${SWIFT:-swift}
logs=out/lanes
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/results out/deb/classroom-player_*.deb
started=$(date +%s)

load_job=
trap '[[ -n $load_job ]] && kill "$load_job" 2> /dev/null' EXIT

# LOAD=1: the other work a developer's machine runs beside make test: one core busy at normal
# priority, in a session of its own (another terminal's program), bounded by the run.
if [[ -n ${LOAD:-} && ${LOAD:-} != 0 ]]; then
  setsid timeout 3h bash -c 'while :; do :; done' &
  load_job=$!
  echo "==== LOAD=1: one core kept busy at normal priority beside the run (pid $load_job) ===="
fi

native=$( . /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}" ) || native=""
case "$native" in
  bookworm) native_lane=debian12 ;;
  trixie) native_lane=debian13 ;;
  *) native_lane=${native:-native} ;;
esac
case ${1:-all} in
  all|native) ;;
  *) echo "test-lanes: no such lane choice '$1'; LANES is 'all' (the default: every lane this machine can run) or 'native' (this machine's alone)." >&2; exit 2 ;;
esac
lanes=("$native_lane")
# The root's commands as root: directly, or through sudo as scripts/setup.sh does.
as_root=()
if [[ ${1:-all} == all && $native_lane == debian12 ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo > /dev/null || {
      echo "test-lanes: the debian13 lane needs root (debootstrap, mounts, chroot) and there is no sudo; run 'make test' as root, or 'make test LANES=native' for this machine's lane alone." >&2
      exit 1
    }
    as_root=(sudo)
  fi
  lanes+=(debian13)
fi

# lane_make LANE TARGET...: make in the lane (here, or in the root with its own scratch path);
# with ON_HOST=1, here as root whatever the lane: a lane's package is checked from outside its root.
lane_make() {
  local lane=$1; shift
  if [[ -n ${ON_HOST:-} ]]; then
    "${as_root[@]}" make --no-print-directory SWIFT="$swift" "$@"
  elif [[ $lane == debian13 && $native_lane != debian13 ]]; then
    "${as_root[@]}" env DEBIAN13_NETWORK=private bash scripts/debian13.sh run make --no-print-directory SCRATCH=.build-debian13 SWIFT=swift "$@"
  else
    make --no-print-directory SWIFT="$swift" "$@"
  fi
}

# step LANE PASS TARGET [VAR=VALUE...]: one pass, timed, its result line kept; never stops the lane.
step() {
  local lane=$1 pass=$2; shift 2
  local from=$(date +%s) log=$logs/$lane-$pass.log status
  echo "==== [$lane] $pass: make $* ($(date +%H:%M:%S)) ===="
  lane_make "$lane" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  local count
  # The pass's own run (the first), not a retry's: a retried test is named after it.
  count=$(grep -aE '(✔|✘) Test run with' "$log" | head -1 | sed -E 's/^.*(Test run)/\1/' | cut -c1-90)
  local retried
  retried=$(grep -acE '^RETRIED: ' "$log")
  [[ $retried -gt 0 ]] && count="$count; retried alone and passed: $(grep -aE '^RETRIED: ' "$log" | sed -E 's/^RETRIED: ([^ ]+) .*/\1/' | sed -E 's/^[^.]*\.//' | paste -sd, -)"
  [[ -z $count ]] && count=$(grep -aE '^setup:|Build complete|error:' "$log" | tail -1 | cut -c1-90)
  local leaks
  leaks=$(grep -aE '^check-leaks: [0-9]+ ' "$log" | tail -1 | sed -E 's/^check-leaks: ([0-9]+) .*/\1/')
  [[ -n $leaks ]] && count="$count; leaked objects of ours: $leaks"
  printf '%s\t%s\t%s\t%s\t%s\n' "$lane" "$pass" "$([[ $status -eq 0 ]] && echo passed || echo FAILED)" \
    "$(( ($(date +%s) - from) ))" "$count" >> "$logs/results"
  return "$status"
}

# quiet LANE PASS TARGET...: step with its output only in its log (a lane running beside another).
quiet() { step "$@" > /dev/null 2>&1; }

two=${lanes[1]:-}
codename_of() { [[ $1 == debian13 ]] && echo trixie || echo bookworm; }

# 1. This machine's build; the root beside it, and the bare roots the packages and make demo are
#    checked in (debootstrap and apt: mostly waiting on the network).
for lane in "${lanes[@]}"; do
  ( "${as_root[@]}" bash scripts/deb-check.sh --root "$(codename_of "$lane")"
    "${as_root[@]}" bash scripts/demo-check.sh --root "$(codename_of "$lane")" ) > "$logs/$lane-bare-roots.log" 2>&1 &
done
if [[ -n $two ]]; then
  ( from=$(date +%s); "${as_root[@]}" bash scripts/debian13.sh root > "$logs/debian13-root.log" 2>&1; s=$?
    printf '%s\t%s\t%s\t%s\t%s\n' debian13 root "$([[ $s -eq 0 ]] && echo passed || echo FAILED)" $(( $(date +%s) - from )) \
      "$(tail -1 "$logs/debian13-root.log" | cut -c1-90)" >> "$logs/results"; exit $s ) &
  root_job=$!
fi
step "$native_lane" build test-build

# 2. The other lane's build, quick pass and example beside this lane's non-real-time work.
if [[ -n $two ]]; then
  wait "$root_job"
  if grep -q $'^debian13\troot\tpassed' "$logs/results"; then
    { quiet debian13 build test-build && quiet debian13 quick test-quick "QUICK_SKIP=|ClassroomAudioTests" LEAKS=1
      quiet debian13 example test-example
      quiet debian13 deb deb && ON_HOST=1 quiet debian13 deb-check deb-check "DEB=$(echo out/deb/classroom-player_*~deb13_*.deb)"
      ON_HOST=1 quiet debian13 demo-check demo-check RELEASE=trixie; } &
    build_job=$!
  else
    echo "==== [debian13] no root, so no lane: $(tail -3 "$logs/debian13-root.log") ===="
  fi
fi
step "$native_lane" quick test-quick LEAKS=1
step "$native_lane" session-standalone test-session-standalone
step "$native_lane" example test-example
step "$native_lane" docs docs man
# The package a kiosk installs, and its install, run and purge in a bare root of this release; then
# make demo from a clone in a bare root with only what Swift needs.
step "$native_lane" deb deb && ON_HOST=1 step "$native_lane" deb-check deb-check "DEB=$(echo out/deb/classroom-player_*~"${native_lane/debian/deb}"_*.deb)"
ON_HOST=1 step "$native_lane" demo-check demo-check "RELEASE=$(codename_of "$native_lane")"
if [[ -n ${build_job:-} ]]; then
  echo "==== [debian13] waiting for its build, quick pass, example, package and make demo ($(date +%H:%M:%S)) ===="
  wait "$build_job"
  for pass in root build quick example deb deb-check demo-check; do
    [[ -f $logs/debian13-$pass.log ]] || continue
    echo "==== [debian13] $pass (from $logs/debian13-$pass.log) ===="
    cat "$logs/debian13-$pass.log"
  done
fi

# passes LANE PASS TARGET [PASS TARGET]...: the lane's passes one after another, each a step of its
# own; false if any failed.
passes() {
  local lane=$1 status=0
  shift
  while [[ $# -ge 2 ]]; do
    # shellcheck disable=SC2086 # a target may carry VAR=VALUE words (LEAKS=1)
    step "$lane" "$1" $2 || status=1
    shift 2
  done
  return "$status"
}

# beside LANE PASS TARGET... -- LANE PASS TARGET...: the first lane's passes with their output as it
# comes, the second's at the same time into their logs, printed when both are done; false if any
# failed.
beside() {
  local left=() right=() status=0
  while [[ $1 != -- ]]; do left+=("$1"); shift; done
  shift
  right=("$@")
  passes "${right[@]}" > /dev/null 2>&1 &
  local job=$!
  passes "${left[@]}" || status=1
  echo "==== [${right[0]}] waiting for its passes, run beside [${left[0]}] ($(date +%H:%M:%S)) ===="
  wait "$job" || status=1
  local i
  for (( i = 1; i < ${#right[@]}; i += 2 )); do
    echo "==== [${right[0]}] ${right[i]} (from $logs/${right[0]}-${right[i]}.log) ===="
    cat "$logs/${right[0]}-${right[i]}.log"
  done
  return "$status"
}

# 3. The real-time passes. With two lanes, each one's engine pass and the CLI's part a beside the
#    other's CLI part b (the two sides take about as long), then the other way round, then the
#    device passes one at a time; with one, one pass at a time.
if [[ -n $two ]] && grep -q $'^debian13\tbuild\tpassed' "$logs/results"; then
  beside "$native_lane" engine "test-engine LEAKS=1" cli-a "test-cli CLI_PART=a" -- debian13 cli-b "test-cli CLI_PART=b"
  beside "$native_lane" cli-b "test-cli CLI_PART=b" -- debian13 engine "test-engine LEAKS=1" cli-a "test-cli CLI_PART=a"
  for lane in "$native_lane" debian13; do
    step "$lane" devices-pulseaudio test-devices-pulseaudio
    step "$lane" devices-pipewire test-devices-pipewire
  done
else
  step "$native_lane" engine test-engine LEAKS=1
  step "$native_lane" devices-pulseaudio test-devices-pulseaudio
  step "$native_lane" devices-pipewire test-devices-pipewire
  step "$native_lane" cli test-cli
fi

echo
echo "==== make test: every lane and pass ($(( ($(date +%s) - started) / 60 )) min $(( ($(date +%s) - started) % 60 )) s in all) ===="
sort -s -t$'\t' -k1,1 "$logs/results" | awk -F'\t' '{ printf "%-9s %-19s %-7s %5.1f min  %s\n", $1, $2, $3, $4 / 60, $5 }'
if grep -q $'\tFAILED\t' "$logs/results"; then
  echo
  awk -F'\t' '$3 == "FAILED" { printf "make test: FAILED in the %s lane: %s (log: out/lanes/%s-%s.log)\n", $1, $2, $1, $2 }' "$logs/results"
  # What failed, again at the very end: CI keeps only the tail of a long run's output.
  awk -F'\t' '$3 == "FAILED" { print $1 "-" $2 }' "$logs/results" | while read -r pass; do
    echo
    echo "==== what failed in $pass ===="
    sed -n '/^==== swift test .* failed; what failed/,/^==== end of what failed/p' "$logs/$pass.log" | grep -av '^====' | cut -c1-400 | tail -n 20
    grep -aE '^check-leaks: [1-9]|^error: |^setup: ' "$logs/$pass.log" | tail -n 5
  done
  exit 1
fi
echo "make test: every lane passed (${lanes[*]})."
