#!/usr/bin/env python3
"""A Janus HTTP API that misbehaves in one chosen way, for the room's tests (loopback only).

    scripts/misbehaving-janus.py MODE PORT

Every mode answers create, attach and the AudioBridge join the way Janus does (a `joined` event
with our transaction on the first long poll) unless MODE changes it:
  huge-poll       the long polls after `joined` answer 150 MB
  redirect        every POST answers 302 to /elsewhere/..., where a well-behaved Janus answers
  foreign-joined  the `joined` event carries another transaction; later polls answer []
  forbidden       every POST answers Janus's 403 (wrong or missing secret/token)
  late-forbidden  the same, each held until the file named by a third argument exists (at most 30 s)
  silent-join     `join` is acked, no `joined` ever comes: polls are held 60 s
  error-500       the first 3 POSTs answer HTTP 500, then it behaves
  hang-after-join once it said `joined`, every request is held 60 s (leave and destroy too)
  negative-chunk  the long polls after `joined` answer a chunked body whose first chunk size is -1
  huge-negative-chunk   … whose first chunk size is -8000000000000000
  crowd           the long polls after `joined` each announce 500 new participants with 1000-character names, at once
  empty-poll      the long polls after `joined` answer [] at once instead of holding 30 s
  drop-join       every join is answered `joined`, and the next poll hangs it up
  no-audio        (or any other name) it behaves, and sends no RTP
Writes one line per request to stdout ("POST /janus", "GET /janus/1?maxev=10 held", ...).
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, PORT = sys.argv[1], int(sys.argv[2])
RELEASE = sys.argv[3] if len(sys.argv) > 3 else ""
SESSION, HANDLE, OUR_ID = 1001, 2002, 3003
lock = threading.Lock()
state = {"posts": 0, "polls": 0, "join": None, "joined_sent": False}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends with the connection: no length needed

    def log_message(self, *args):
        pass

    def note(self, text):
        print(text, flush=True)

    def reply(self, value, status=200):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length) or b"{}")
        self.note(f"POST {self.path} {request.get('janus')}")
        with lock:
            state["posts"] += 1
            posts = state["posts"]
        transaction = request.get("transaction")
        # Held from the moment `joined` went out, not from the next poll: a kiosk told to stop as
        # soon as it reports the room joined may leave before it polls again.
        if MODE == "hang-after-join" and state["joined_sent"]:
            self.note(f"POST {self.path} held")
            time.sleep(60)
            return
        if MODE == "redirect" and not self.path.startswith("/elsewhere"):
            self.send_response(302)
            self.send_header("Location", "/elsewhere" + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if MODE == "late-forbidden":
            held_until = time.monotonic() + 30
            while not os.path.exists(RELEASE) and time.monotonic() < held_until:
                time.sleep(0.05)
        if MODE in ("forbidden", "late-forbidden"):
            self.reply({"janus": "error", "transaction": transaction,
                        "error": {"code": 403, "reason": "Unauthorized request (wrong or missing secret/token)"}})
            return
        if MODE == "error-500" and posts <= 3:
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        kind = request.get("janus")
        if kind == "create":
            self.reply({"janus": "success", "transaction": transaction, "data": {"id": SESSION}})
        elif kind == "attach":
            self.reply({"janus": "success", "transaction": transaction, "data": {"id": HANDLE}})
        elif kind == "message":
            if request.get("body", {}).get("request") == "join":
                with lock:
                    state["join"] = transaction
            self.reply({"janus": "ack", "transaction": transaction})
        else:
            self.reply({"janus": "success", "transaction": transaction})

    def do_GET(self):
        with lock:
            state["polls"] += 1
            polls, join = state["polls"], state["join"]
        if MODE == "silent-join" or join is None:
            self.note(f"GET {self.path} held")
            time.sleep(60)
            return
        self.note(f"GET {self.path}")
        if polls > 1 and MODE == "hang-after-join":
            time.sleep(60)
            return
        if MODE == "drop-join":
            with lock:
                answered = state.get("answered") == join
                state["answered"] = join
            if answered:
                self.reply([{"janus": "hangup", "session_id": SESSION, "sender": HANDLE, "reason": "dropped by the test"}])
                return
        elif polls > 1:
            if MODE == "crowd":
                first = polls * 500
                people = [{"id": first + i, "display": "x" * 1000, "muted": False} for i in range(500)]
                self.reply([{"janus": "event", "session_id": SESSION, "sender": HANDLE,
                             "plugindata": {"plugin": "janus.plugin.audiobridge",
                                            "data": {"audiobridge": "joined", "room": 1234, "participants": people}}}])
                return
            if MODE == "empty-poll":
                self.reply([])
                return
            if MODE == "huge-poll":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                try:
                    self.wfile.write(b"[")
                    chunk = b" " * (1 << 20)
                    for _ in range(150):
                        self.wfile.write(chunk)
                    self.wfile.write(b"]")
                    self.note("huge reply sent whole")
                except (BrokenPipeError, ConnectionResetError):
                    self.note("huge reply cut off by the client")
                return
            if MODE in ("negative-chunk", "huge-negative-chunk"):
                size = b"-1" if MODE == "negative-chunk" else b"-8000000000000000"
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 + size + b"\r\n[]\r\n0\r\n\r\n")
                return
            time.sleep(1)  # a quiet room: nothing new for a while
            self.reply([])
            return
        transaction = "someone-elses-transaction" if MODE == "foreign-joined" else join
        with lock:
            state["joined_sent"] = True
        self.reply([{"janus": "event", "session_id": SESSION, "sender": HANDLE, "transaction": transaction,
                     "plugindata": {"plugin": "janus.plugin.audiobridge",
                                    "data": {"audiobridge": "joined", "room": 1234, "id": OUR_ID, "participants": [],
                                             "rtp": {"ip": "127.0.0.1", "port": 9, "payload_type": 111}}}}])


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
print(f"listening on {PORT} ({MODE})", flush=True)
server.serve_forever()
