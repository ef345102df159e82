#!/usr/bin/env bash
# WORKAROUNDS §17 (an idle null sink holds a new stream up to 2 s) and §28 (pulsesink's 200 ms
# default buffer-time underflows) on whatever sound server and GStreamer this system has. Run it
# inside scripts/with-pulseaudio.sh or scripts/with-pipewire.sh (a fresh private server with one
# idle null sink, "speaker"); it prints one line per experiment.
#
#   scripts/with-pipewire.sh bash scripts/measure/null-sink-hold.sh §17
#   scripts/with-pulseaudio.sh bash scripts/measure/null-sink-hold.sh §28
#   scripts/with-pulseaudio.sh bash scripts/measure/null-sink-hold.sh §28c
#
# §17: the idle sink's latency as `pactl list sinks` says it, then 0.5 s of live audio into it
#      (gst-launch-1.0, wall clock, gst-launch's start included), and the same into a synced
#      fakesink for gst-launch's own cost. Give it a fresh server: only the first stream meets the
#      idle sink.
# §28: 8 s of live audio into pulsesink with the pipeline's latency fixed (python3-gi:
#      pipeline.set_latency), GST_DEBUG=pulse:4, "Got underflow" warnings counted; buffer-time
#      200 ms (the default) at 40 ms latency, and 30 ms at 80 ms. Each run on its own fresh
#      server is cleanest: run the script once per server for each.
# §28c: the engine's raise of its output buffer, alone: a live tone through a live audiomixer
#      (20 ms wait) into pulsesink (30 ms buffer); 4 s in, the sink is reopened with a 50 ms
#      buffer under a blocking probe, as `AudioEngine.raiseOutputBuffer` does; printed: the longest
#      wait between buffers at the sink after the reopen. Three ways: the stream alone on the
#      device, with another (silent) stream on it, and with the device's monitor recorded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

server() {
  pactl info 2>/dev/null | sed -n 's/^Server Name: //p; s/^Server Version: //p' | paste -sd ' '
}

sink_latency() {
  # "Latency: 1974945 usec, configured 2000000 usec" for the speaker sink.
  pactl list sinks | awk '/^[ \t]*Name: /{n=$2} /^[ \t]*Latency: /{if (n=="speaker") {sub(/^[ \t]*/, ""); print; exit}}'
}

ms() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.0f", (b - a) * 1000}'; }

e17() {
  local before after t0 t1 t2 t3
  before=$(sink_latency)
  t0=$(date +%s.%N)
  gst-launch-1.0 -q audiotestsrc is-live=true num-buffers=50 samplesperbuffer=480 \
    ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! pulsesink device=speaker >/dev/null
  t1=$(date +%s.%N)
  after=$(sink_latency)
  t2=$(date +%s.%N)
  gst-launch-1.0 -q audiotestsrc is-live=true num-buffers=50 samplesperbuffer=480 \
    ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! fakesink sync=true >/dev/null
  t3=$(date +%s.%N)
  printf '§17 %s: idle sink "%s"; 0.5 s live into pulsesink device=speaker took %s ms wall; sink after: "%s"; same into fakesink sync=true %s ms\n' \
    "$(server)" "$before" "$(ms "$t0" "$t1")" "$after" "$(ms "$t2" "$t3")"
}

e28() {
  local buffer_us=$1 latency_ms=$2 seconds=${3:-8}
  local log
  log=$(mktemp)
  GST_DEBUG=pulse:4 GST_DEBUG_NO_COLOR=1 /usr/bin/python3 - "$buffer_us" "$latency_ms" "$seconds" 2>"$log" <<'EOF'
import sys, time
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
buffer_us, latency_ms, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
pipe = Gst.parse_launch("audiotestsrc is-live=true samplesperbuffer=480 wave=sine freq=440 "
                        "! audio/x-raw,format=S16LE,rate=48000,channels=2 "
                        f"! pulsesink name=sink device=speaker buffer-time={buffer_us}")
pipe.set_latency(latency_ms * Gst.MSECOND)
pipe.set_state(Gst.State.PLAYING)
msg = pipe.get_bus().timed_pop_filtered(int(seconds * Gst.SECOND), Gst.MessageType.ERROR)
if msg:
    print("error:", msg.parse_error()[0].message)
sink = pipe.get_by_name("sink")
print(f"latency-time={sink.get_property('latency-time')} buffer-time={sink.get_property('buffer-time')}")
pipe.set_state(Gst.State.NULL)
EOF
  local count first last
  count=$(grep -c "Got underflow" "$log" || true)
  # The warnings' times (the log's first column), to say when they came.
  first=$(grep "Got underflow" "$log" | head -1 | awk '{print $1}' || true)
  last=$(grep "Got underflow" "$log" | tail -1 | awk '{print $1}' || true)
  local after2s
  after2s=$(grep "Got underflow" "$log" | awk '{split($1, t, ":"); s = t[1]*3600 + t[2]*60 + t[3]; if (s >= 2) n++} END {print n+0}' || true)
  printf '§28 %s: buffer-time %d us, pipeline latency %d ms, %s s: %d "Got underflow" (%s after 2 s; first %s, last %s)\n' \
    "$(server)" "$buffer_us" "$latency_ms" "$seconds" "$count" "$after2s" "${first:--}" "${last:--}"
  rm -f "$log"
}

e28c_reopen() {
  /usr/bin/python3 - "$1" <<'EOF'
import sys, time
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
pipe = Gst.parse_launch("audiotestsrc is-live=true samplesperbuffer=480 wave=sine freq=440 "
                        "! audio/x-raw,format=S16LE,rate=48000,channels=2 "
                        "! audiomixer latency=20000000 output-buffer-duration=10000000 "
                        "! pulsesink name=sink device=speaker buffer-time=30000 latency-time=10000")
pipe.set_latency(60 * Gst.MSECOND)
sink = pipe.get_by_name("sink")
pad = sink.get_static_pad("sink")
arrivals = []
pad.add_probe(Gst.PadProbeType.BUFFER, lambda p, i: (arrivals.append(time.monotonic()), Gst.PadProbeReturn.OK)[1])
pipe.set_state(Gst.State.PLAYING)
time.sleep(4)
reopened = []
def reopen(p, info):
    reopened.append(time.monotonic())
    sink.set_state(Gst.State.READY)
    sink.set_property("buffer-time", 50000)
    pipe.set_latency(80 * Gst.MSECOND)
    sink.sync_state_with_parent()
    return Gst.PadProbeReturn.REMOVE
pad.get_peer().add_probe(Gst.PadProbeType.BLOCK_DOWNSTREAM | Gst.PadProbeType.BUFFER, reopen)
time.sleep(4)
pipe.set_state(Gst.State.NULL)
after = [t for t in arrivals if t >= reopened[0]]
longest = max(b - a for a, b in zip(after, after[1:]))
print(f"§28c {sys.argv[1]}: the longest wait between buffers at the sink after the reopen {longest * 1000:.0f} ms")
EOF
}

e28c() {
  local other
  e28c_reopen "$(server), the stream alone on the device"
  gst-launch-1.0 -q audiotestsrc is-live=true wave=silence ! audio/x-raw,rate=48000,channels=2 \
    ! pulsesink device=speaker buffer-time=30000 latency-time=10000 >/dev/null 2>&1 &
  other=$!
  sleep 2
  e28c_reopen "$(server), another stream on the device"
  kill "$other"
  gst-launch-1.0 -q pulsesrc device=speaker.monitor ! audio/x-raw,rate=48000,channels=1 ! fakesink >/dev/null 2>&1 &
  other=$!
  sleep 2
  e28c_reopen "$(server), the device's monitor recorded"
  kill "$other"
}

for name in "${@:-§17}"; do
  case $name in
    §17) e17 ;;
    §28) e28 200000 40; e28 30000 80 ;;
    §28a) e28 200000 40 ;;
    §28b) e28 30000 80 ;;
    §28c) e28c ;;
    *) echo "unknown experiment $name" >&2; exit 2 ;;
  esac
done
