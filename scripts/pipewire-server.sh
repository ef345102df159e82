#!/usr/bin/env bash
# Starts (start, the default) or kills (kill) the private PipeWire stack of
# scripts/with-pipewire.sh in $XDG_RUNTIME_DIR: pipewire, WirePlumber and pipewire-pulse
# (PulseAudio's protocol), with one null sink, "speaker", like scripts/pulse-server.sh; waits
# until it answers. Tests call it again (through $CLASSROOM_AUDIO_PULSE_START and
# $CLASSROOM_AUDIO_PULSE_KILL) to play a sound-server crash and its return.
set -euo pipefail
: "${XDG_RUNTIME_DIR:?pipewire-server.sh needs XDG_RUNTIME_DIR (see scripts/with-pipewire.sh)}"

if [[ ${1:-start} == kill ]]; then
  # SIGTERM to the whole stack, as `pulseaudio --kill` does to PulseAudio: the server goes away
  # and its clients see their connections end. Waits until every process has gone.
  for pid_file in "$XDG_RUNTIME_DIR"/pw-*.pid; do
    [[ -f $pid_file ]] && kill -TERM "$(cat "$pid_file")" 2>/dev/null || true
  done
  for pid_file in "$XDG_RUNTIME_DIR"/pw-*.pid; do
    [[ -f $pid_file ]] || continue
    for _ in $(seq 1 50); do kill -0 "$(cat "$pid_file")" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$(cat "$pid_file")" 2>/dev/null || true
    rm -f "$pid_file"
  done
  rm -f "$XDG_RUNTIME_DIR"/pipewire-0 "$XDG_RUNTIME_DIR"/pipewire-0.lock
  exit 0
fi

log=$XDG_RUNTIME_DIR/pipewire.log
pipewire >>"$log" 2>&1 & echo $! > "$XDG_RUNTIME_DIR/pw-pipewire.pid"
for _ in $(seq 1 50); do [[ -S $XDG_RUNTIME_DIR/pipewire-0 ]] && break; sleep 0.1; done
wireplumber >>"$log" 2>&1 & echo $! > "$XDG_RUNTIME_DIR/pw-wireplumber.pid"
pipewire-pulse >>"$log" 2>&1 & echo $! > "$XDG_RUNTIME_DIR/pw-pulse.pid"
for _ in $(seq 1 50); do
  if pactl info >/dev/null 2>&1; then
    # The graph's cycle no shorter than 512 samples (10.7 ms). Streams asking for 10 ms blocks make
    # it 256 (5.33 ms), and this machine (a virtual machine with 2 vCPUs) wakes a SCHED_FIFO thread
    # up to 9 ms late now and then (scripts/measure/wakeup-latency.py), so a cycle is lost and a
    # 256-sample quantum plays silent (GSTREAMER-WORKAROUNDS §7): in 4 of 5 2-minute runs of
    # scripts/measure/skew-clicks.py --hog at 256, in none of 4 at 512 or 1024.
    pw-metadata -n settings 0 clock.min-quantum 512 >/dev/null
    pactl load-module module-null-sink sink_name=speaker sink_properties=device.description=Speaker >/dev/null
    # WirePlumber makes the new sink the default once it sees it.
    for _ in $(seq 1 50); do
      [[ $(pactl get-default-sink 2>/dev/null) == speaker ]] && exit 0
      sleep 0.1
    done
    echo "pipewire-server: the speaker sink did not become the default" >&2
    exit 1
  fi
  sleep 0.1
done
echo "pipewire-server: PipeWire did not start; its log:" >&2
cat "$log" >&2 || true
exit 1
