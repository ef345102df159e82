#!/usr/bin/env bash
# Runs the prototype: a private Janus in one network namespace, two webrtcbin kiosks (440 Hz and
# 880 Hz tones) in another, joined by a veth pair; each records what the room sends it.
#   bash run.sh [extra kiosk.py flags, e.g. --trickle]     (as root: it makes network namespaces)
# SECONDS_PER_RUN (12) is how long each kiosk stays; KIOSK_GST_DEBUG sets the kiosks' GST_DEBUG; out/ holds
# the logs, the SDPs (offer-initial, offer-sent, answer) and the received WAVs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/webrtc-prototype.XXXXXX)
n=$(( RANDOM % 200 + 20 ))
srv=wp-janus-$n; kio=wp-kiosk-$n; sa=10.203.$n.1; ka=10.203.$n.2
out=$work/out; rm -rf "$out"; mkdir -p "$out"
janus_pid=""
cleanup() {
  [[ -n $janus_pid ]] && kill "$janus_pid" 2>/dev/null && wait "$janus_pid" 2>/dev/null || true
  ip netns del "$srv" 2>/dev/null || true; ip netns del "$kio" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$srv"; ip netns add "$kio"
ip link add wpj$n type veth peer name wpk$n
ip link set wpj$n netns "$srv"; ip link set wpk$n netns "$kio"
ip -n "$srv" addr add $sa/24 dev wpj$n; ip -n "$srv" link set wpj$n up; ip -n "$srv" link set lo up
ip -n "$kio" addr add $ka/24 dev wpk$n; ip -n "$kio" link set wpk$n up; ip -n "$kio" link set lo up
echo "namespaces $srv ($sa) and $kio ($ka)"

ip netns exec "$srv" bash "$repo/scripts/janus-server.sh" "$work/janus-cfg" 8088 $sa > "$out/janus.log" 2>&1 &
janus_pid=$!
for i in $(seq 50); do
  ip netns exec "$kio" curl -sf -m 1 http://$sa:8088/janus/info >/dev/null 2>&1 && break; sleep 0.2
done
echo "janus up after ~$((i / 5)) s"

kiosks=()
for f in 440 880; do
  ip netns exec "$kio" timeout -k 5 $(( ${SECONDS_PER_RUN:-12} + 25 )) env GST_DEBUG=${KIOSK_GST_DEBUG:-1} /usr/bin/python3 -X faulthandler "$here/kiosk.py" --janus http://$sa:8088/janus --room 2222 \
    --freq $f --seconds ${SECONDS_PER_RUN:-12} --out "$out/rx-$f.wav" --dir "$out" "$@" > "$out/kiosk-$f.log" 2>&1 &
  kiosks+=($!)
done
for pid in "${kiosks[@]}"; do wait "$pid" || echo "kiosk $pid exited with $?"; done
grep -h "first decoded\|ice-connection-state\|dtls state\|connection-state\|pad-added\|ERROR\|join sent" "$out"/kiosk-*.log || true
/usr/bin/python3 "$here/analyze.py" "$out"/rx-*.wav
grep -hE "Creating ICE agent|DTLS handshake|WebRTC media is now|Couldn't find any address|Initializing ICE" "$out/janus.log" | sed 's/\x1b\[[0-9;]*m//g; s/^/janus: /' || true
