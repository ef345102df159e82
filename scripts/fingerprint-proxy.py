#!/usr/bin/env python3
"""A Janus HTTP API proxy that lies about the DTLS fingerprint, for the room's tests (run inside a
test's own network namespace).

    scripts/fingerprint-proxy.py LISTEN_PORT JANUS_HOST:JANUS_PORT

Forwards every request to JANUS_HOST:JANUS_PORT and every reply back, with each hex digit of every
`a=fingerprint:` value changed: what a man in the middle of the media path would hand out while
the signalling looks right. Writes one line per rewritten fingerprint to stdout, and one per
offer a kiosk sends with the transports of its candidates ("offer candidates: UDP 2, TCP 0").
"""
import re
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LISTEN, JANUS = int(sys.argv[1]), sys.argv[2]
FINGERPRINT = re.compile(rb"(a=fingerprint:[A-Za-z0-9-]+ )([0-9A-Fa-f:]+)")
CANDIDATE = re.compile(rb"a=candidate:\S+ \d+ (\S+) ")


def lie(match):
    flipped = bytes(b if b == ord(":") else ord("0123456789ABCDEF"[(int(chr(b), 16) + 1) % 16]) for b in match.group(2))
    print("rewrote a fingerprint", flush=True)
    return match.group(1) + flipped


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def forward(self, body=None):
        request = urllib.request.Request(f"http://{JANUS}{self.path}", data=body, method=self.command,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                status, payload = reply.status, reply.read()
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        payload = FINGERPRINT.sub(lie, payload)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.forward()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if b'"offer"' in body:
            transports = [t.upper() for t in CANDIDATE.findall(body)]
            print(f"offer candidates: UDP {transports.count(b'UDP')}, TCP {transports.count(b'TCP')}", flush=True)
        self.forward(body)


ThreadingHTTPServer.daemon_threads = True
server = ThreadingHTTPServer(("0.0.0.0", LISTEN), Handler)
print(f"listening on {LISTEN}, Janus on {JANUS}", flush=True)
server.serve_forever()
