#!/usr/bin/env python3
"""A UPnP gateway's ears, for the room's tests (run inside a test's own network namespace).

    scripts/ssdp-listener.py ADDRESS

Joins the SSDP group 239.255.255.250:1900 on the interface that has ADDRESS and writes one line
per datagram it hears there ("ssdp from HOST:PORT: FIRST LINE"), as a rogue gateway on the LAN
would see a kiosk's search for it.
"""
import socket
import struct
import sys

GROUP, PORT = "239.255.255.250", 1900
listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("", PORT))
listener.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack("4s4s", socket.inet_aton(GROUP), socket.inet_aton(sys.argv[1])))
print(f"listening on {GROUP}:{PORT} at {sys.argv[1]}", flush=True)
while True:
    data, (host, port) = listener.recvfrom(65536)
    first = data.split(b"\r\n", 1)[0].decode("latin-1")
    print(f"ssdp from {host}:{port}: {first}", flush=True)
