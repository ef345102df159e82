#!/usr/bin/env bash
# Runs CMD so that it takes only the CPU nothing else wants: make test builds and checks packages
# with it beside the real-time passes, whose CPUs are mostly idle while they wait on real time.
#
#   scripts/lowest-priority.sh CMD [ARGS...]
#
# SCHED_IDLE alone is not enough where the kernel groups tasks by session (autogroup, on by default
# on Debian): CPU is shared between sessions first, so idle tasks beside a busy session still got
# half a core (measured: 48 % of a CPU against a busy loop, 0.9 % with the session's group at nice
# 19). So CMD runs in a session of its own whose group is at nice 19, and SCHED_IDLE within it.
set -euo pipefail
[[ $# -gt 0 ]] || { echo "usage: scripts/lowest-priority.sh CMD [ARGS...]" >&2; exit 64; }
exec setsid --wait bash -c '
  # No autogroup (a kernel without it, or switched off): SCHED_IDLE then does the whole job.
  [[ -w /proc/self/autogroup ]] && echo 19 > /proc/self/autogroup 2>/dev/null || true
  exec chrt --idle 0 "$@"' lowest-priority "$@"
