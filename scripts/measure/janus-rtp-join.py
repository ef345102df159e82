#!/usr/bin/env python3
"""Joins a Janus AudioBridge room as a plain-RTP participant for a measurement, the way a minimal
sender or receiver outside the kiosk would: prints the port Janus takes this participant's RTP on,
then keeps the session alive until SIGINT or SIGTERM (Janus drops a session 60 s after its last
request) and leaves.

  janus-rtp-join.py janus://HOST:PORT/ROOM --display NAME --receive-port P [--prebuffer N] [--muted]

Janus sends the room's mix (without this participant) to 127.0.0.1:P; the participant sends its
Opus RTP (payload type 111) to the printed port, from P. --prebuffer is the join's: how many 20 ms
packets Janus queues from this participant before it mixes them (docs/WEBRTC-NOTES.md). Janus 1.1.2
sends a plain-RTP participant nothing until its first packet arrives (janus_audiobridge.c: the first
packet stands in for setup_media), so one Opus silence packet is sent from P before the port is
printed: a --muted listener that never sends is then sent the mix too.
"""
import argparse
import json
import random
import signal
import socket
import sys
import threading
import urllib.parse
import urllib.request


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("room", help="janus://HOST:PORT/ROOM")
    parser.add_argument("--display", required=True)
    parser.add_argument("--receive-port", type=int, required=True)
    parser.add_argument("--prebuffer", type=int)
    parser.add_argument("--muted", action="store_true", help="join muted: a listener")
    args = parser.parse_args()
    address = urllib.parse.urlparse(args.room)
    if address.scheme != "janus" or not address.port or not address.path.strip("/").isdigit():
        sys.exit(f"janus-rtp-join.py: '{args.room}' is not janus://HOST:PORT/ROOM")
    api = f"http://{address.hostname}:{address.port}/janus"
    room = int(address.path.strip("/"))

    def call(path, body=None):
        if body is not None:
            body = dict(body, transaction=f"{random.getrandbits(48):x}")
        request = urllib.request.Request(api + path, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=15) as answer:
            return json.load(answer)

    session = call("", {"janus": "create"})["data"]["id"]
    handle = call(f"/{session}", {"janus": "attach", "plugin": "janus.plugin.audiobridge"})["data"]["id"]
    join = {"request": "join", "room": room, "display": args.display,
            "rtp": {"ip": "127.0.0.1", "port": args.receive_port, "payload_type": 111}}
    if args.prebuffer is not None:
        join["prebuffer"] = args.prebuffer
    if args.muted:
        join["muted"] = True
    call(f"/{session}/{handle}", {"janus": "message", "body": join})
    # Other participants' events may come first: read on to this join's answer.
    port = None
    for _ in range(20):
        polled = call(f"/{session}?maxev=5")
        for event in polled if isinstance(polled, list) else [polled]:
            data = event.get("plugindata", {}).get("data", {})
            if "error_code" in data:
                sys.exit(f"janus-rtp-join.py: Janus refused the join: {data.get('error')} ({data['error_code']})")
            if event.get("sender") == handle and "rtp" in data:
                port = data["rtp"]["port"]
        if port:
            break
    if not port:
        sys.exit("janus-rtp-join.py: no answer to the join from Janus")
    # RTP version 2, payload type 111, then an Opus TOC for one 20 ms frame of silence.
    hello = bytes([0x80, 111, 0, 1, 0, 0, 0, 0]) + random.getrandbits(32).to_bytes(4, "big") + bytes([0xF8, 0xFF, 0xFE])
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as first:
        first.bind(("127.0.0.1", args.receive_port))
        first.sendto(hello, (address.hostname, port))
    print(port, flush=True)

    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    while not done.wait(10):
        call(f"/{session}", {"janus": "keepalive"})
    try:
        call(f"/{session}", {"janus": "destroy"})
    except OSError:
        pass  # Janus gone first: nothing left to leave


if __name__ == "__main__":
    main()
