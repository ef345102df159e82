#!/usr/bin/env bash
# Mouth-to-ear latency through the sound server the caller started (scripts/with-pulseaudio.sh or
# scripts/with-pipewire.sh), as a listener would have it: two null sinks are the devices — "mouth",
# whose monitor is kiosk A's microphone, and "ear", kiosk B's speaker — and one gst-launch pipeline
# records both monitors on one clock (audiointerleave aligns them by timestamp). A 40 ms tone
# burst is played into "mouth" every second; each burst's delay is the onset on "ear" minus the
# onset on "mouth" (scripts/measure/onsets.py). Prints one JSON line.
#
#   scripts/measure/mouth-to-ear.sh SENDER RECEIVER [BURSTS]
#
# SENDER, what hears "mouth" and sends RTP to 127.0.0.1:$PORT:
#   floor          gst-launch: pulsesrc (20 ms buffer) ► Opus 10 ms ► RTP ► udpsink
#   kiosk          classroom-player ($PLAYER) with --mic mouth-mic --uplink rtp://…?ptime=10
#   kiosk-room     classroom-player joined to $ROOM (a janus:// or http:// room) with --mic mouth-mic
#   floor-room     the floor's sender with 20 ms Opus packets (the AudioBridge mixes one packet per
#                  20 ms), joined to $ROOM (janus:// only) as a plain-RTP participant with the
#                  kiosk's prebuffer ($PREBUFFER, 4 unless given) by scripts/measure/janus-rtp-join.py
# RECEIVER, what plays that on "ear":
#   floor          gst-launch: udpsrc ► rtpjitterbuffer 10 ms ► opusdec ► pulsesink (20 ms buffer, sync=false)
#   kiosk          classroom-player with --live rtp://127.0.0.1:$PORT --output ear
#   kiosk-room     classroom-player joined to $ROOM, muted, --output ear
#   floor-room     the floor's receiver on the room's mix, joined to $ROOM as a plain-RTP participant
#                  that sends nothing: Janus's own floor, beside the kiosks through the same room
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sender=$1 receiver=$2 bursts=${3:-12}
port=${PORT:-5004}
player=${PLAYER:?PLAYER names the classroom-player binary}
work=$(mktemp -d /tmp/classroom-audio-m2e.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
  sleep 0.5
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# One stereo null sink, "rig", is both devices: "mouth" is its left channel, "ear" its right, so a
# single capture of rig's monitor holds what was said and what was heard sample-aligned (two
# captures, one per device, were measured to disagree by tens of milliseconds).
pactl load-module module-null-sink sink_name=rig channels=2 channel_map=front-left,front-right >/dev/null
pactl load-module module-remap-sink sink_name=mouth master=rig channels=1 channel_map=mono master_channel_map=front-left remix=no >/dev/null
pactl load-module module-remap-sink sink_name=ear master=rig channels=1 channel_map=mono master_channel_map=front-right remix=no >/dev/null
pactl load-module module-remap-source source_name=mouth-mic master=rig.monitor channels=1 channel_map=mono master_channel_map=front-left remix=no >/dev/null
# A silent lesson: the kiosks play nothing but the path measured.
gst-launch-1.0 -q audiotestsrc wave=silence num-buffers=3000 samplesperbuffer=960 ! audio/x-raw,rate=48000,channels=2 \
  ! opusenc ! oggmux ! filesink location="$work/silence.ogg"
echo '[{"at": 0.3, "do": "mic", "on": true}]' > "$work/mic.json"
# Each burst another pitch (700 Hz up in 97 Hz steps): a noise suppressor learns a tone that repeats
# as noise (measured: 2 of 12 identical 1 kHz bursts never reached the uplink).
parts=()
for ((n = 0; n < bursts; n++)); do
  sox -n -r 48000 -c 1 -b 16 "$work/burst-$n.wav" synth 0.04 sine $((700 + 97 * n)) vol 0.4 pad 0 0.96
  parts+=("$work/burst-$n.wav")
done
sox "${parts[@]}" "$work/bursts.wav"

# room_join NAME [--muted]: joins $ROOM as a plain-RTP participant receiving on a free port; sets
# $receive (that port) and $janus_port (where Janus takes this participant's RTP).
room_join() {
  receive=$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 "$here/janus-rtp-join.py" "${ROOM:?}" --display "$1" --receive-port "$receive" --prebuffer "${PREBUFFER:-4}" ${2:-} > "$work/$1.port" & pids+=($!)
  for _ in $(seq 100); do [[ -s $work/$1.port ]] && break; sleep 0.1; done
  janus_port=$(cat "$work/$1.port")
  [[ -n $janus_port ]] || { echo "mouth-to-ear: $1 could not join $ROOM" >&2; exit 1; }
}
floor_receiver() {  # floor_receiver PORT [JITTERBUFFER_OPTION...]: the floor's receiver on PORT
  local port=$1; shift
  gst-launch-1.0 -q udpsrc port="$port" caps="application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=111" \
    ! rtpjitterbuffer latency=10 "$@" ! rtpopusdepay ! opusdec ! audioconvert ! audioresample \
    ! pulsesink device=ear buffer-time=20000 latency-time=10000 sync=false > /dev/null 2>&1 & pids+=($!)
}
floor_sender() {  # floor_sender FRAME_MS PORT [BIND_PORT]: the floor's sender to PORT
  gst-launch-1.0 -q pulsesrc device=mouth-mic buffer-time=20000 latency-time=10000 ! audio/x-raw,rate=48000,channels=1 \
    ! audioconvert ! opusenc frame-size="$1" ! rtpopuspay pt=111 ! udpsink host=127.0.0.1 port="$2" ${3:+bind-address=127.0.0.1 bind-port=$3} \
    sync=false async=false > /dev/null 2>&1 & pids+=($!)
}

# KIOSK_ARGS: more options for both kiosks (e.g. --output-buffer 40).
kiosk() { "$player" play "$work/silence.ogg" --no-stdin --log-level error ${KIOSK_ARGS:-} "$@" > /dev/null 2>&1 & pids+=($!); }
case $receiver in
  floor) floor_receiver "$port" ;;
  # The room's mix flows from the join on, before anything else plays on the rig: the idle device held
  # the new stream and a sync=false sink kept what piled up meanwhile (453 ms, measured). drop-on-latency
  # lets the jitter buffer shed that pile once the device plays.
  floor-room) room_join ear --muted; floor_receiver "$receive" drop-on-latency=true ;;
  kiosk) kiosk --live "rtp://127.0.0.1:$port" --output ear --events "$work/b.jsonl" ;;
  kiosk-room) kiosk --room "${ROOM:?}" --mic none --output ear --events "$work/b.jsonl" ;;
  *) echo "mouth-to-ear: unknown receiver '$receiver'" >&2; exit 2 ;;
esac
case $sender in
  floor) floor_sender 10 "$port" ;;
  floor-room) room_join mouth; floor_sender 20 "$janus_port" "$receive" ;;
  kiosk) kiosk --mic mouth-mic --uplink "rtp://127.0.0.1:$port?ptime=10" --output null --script "$work/mic.json" --events "$work/a.jsonl" ;;
  kiosk-room) kiosk --room "${ROOM:?}" --mic mouth-mic --output null --script "$work/mic.json" --events "$work/a.jsonl" ;;
  *) echo "mouth-to-ear: unknown sender '$sender'" >&2; exit 2 ;;
esac
# The receiver starts first: a sync=false sink started on a stream already flowing keeps the
# backlog its start-up gathered (measured: 720 ms behind a kiosk). Both ends settle (a room joins, jitter buffers find their size) before the recording starts.
sleep "${SETTLE:-10}"
gst-launch-1.0 -q -e pulsesrc device=rig.monitor ! audio/x-raw,rate=48000,channels=2 ! wavenc ! filesink location="$work/heard.wav" \
  > /dev/null 2>&1 & recorder=$!
sleep 1
paplay --latency-msec=10 -d mouth "$work/bursts.wav"
sleep 1
kill -INT "$recorder"; wait "$recorder" || true
# A receiving kiosk is stopped (SIGINT) so that it writes its `stopped` event: how late its feed's
# pushes reached the mix (late_p99_ms, late_max_ms: what the mixer's wait had to cover).
if [[ $receiver == kiosk* ]]; then
  kill -INT "${pids[0]}" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "${pids[0]}" 2>/dev/null || break; sleep 0.1; done
fi
# The receiving kiosk's jitter buffer when the bursts were heard (at its stop),
# its output's underruns and latency (its last output-underrun event; none: the start's), its feed's lateness
# and what its FEC decoder held (a packet once the stream lost one).
extra=$(python3 -c 'import json, sys
events = list(map(json.loads, open(sys.argv[1])))
sizes = [e["ms"] for e in events if e.get("event") == "live-jitter-buffer"]
underruns = [e for e in events if e.get("event") == "output-underrun"]
started = [e for e in events if e.get("event") == "started"]
stopped = [e for e in events if e.get("event") == "stopped"]
feed = {}
if stopped:
    peers = stopped[-1].get("peers") or []
    feed = peers[0] if peers else (stopped[-1].get("room") or {})
# The buffer in force at the end: the figure in the stopped event (a buffer that never moved
# says no live-jitter-buffer at all), else the last move.
held = feed.get("jitter_buffer_ms", sizes[-1] if sizes else None)
print(json.dumps({"jitter_buffer_ms": held,
                  "output_underruns": underruns[-1]["underruns"] if underruns else 0,
                  "output_latency_ms": underruns[-1]["latency_ms"] if underruns else (started[0].get("output_latency_ms") if started else None),
                  "late_p99_ms": feed.get("late_p99_ms"), "late_max_ms": feed.get("late_max_ms"),
                  "fec_held_ms": feed.get("fec_held_ms")}))' \
  "$work/b.jsonl" 2>/dev/null || echo '{}')
python3 "$here/onsets.py" "$work/heard.wav" --bursts "$bursts" --extra "$extra"
