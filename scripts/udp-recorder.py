#!/usr/bin/env python3
"""Records the datagrams that reach a UDP port, for the tests: what someone on the LAN keeps of a class.

    scripts/udp-recorder.py PORT OUT

Binds 127.0.0.1:PORT, writes "listening" to stdout, then each datagram to OUT as one line of hex,
and ends 3 s after the last one.
"""
import socket
import sys

receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
receiver.bind(("127.0.0.1", int(sys.argv[1])))
print("listening", flush=True)
with open(sys.argv[2], "w") as out:
    try:
        while True:
            out.write(receiver.recv(65536).hex() + "\n")
            out.flush()
            receiver.settimeout(3)
    except socket.timeout:
        pass
