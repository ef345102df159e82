#!/usr/bin/env python3
"""Sends junk RTP from addresses this host does not own the sockets of, for the tests: someone on
the media path forging a server's address, as a WebRTC peer accepts packets only from a source its
ICE agent knows.

    scripts/udp-spoof.py FROM[,FROM...] TO[,TO...] PACKETS

FROM and TO are IPv4 ADDRESS:PORT. Every FROM sends PACKETS packets to every TO, each with a new
random SSRC and 80 bytes of noise, in bursts of 1000 with 40 ms between them (the receiver's socket
buffer takes a burst while its media plays on). Needs CAP_NET_RAW: the packets are built whole
(IP_HDRINCL). Prints "sent N" at the end.
"""
import os
import random
import socket
import struct
import sys
import time


def endpoints(text):
    pairs = []
    for item in text.split(","):
        address, port = item.rsplit(":", 1)
        pairs.append((address, int(port)))
    return pairs


def datagram(source, destination):
    rtp = struct.pack("!BBHII", 0x80, 111, random.getrandbits(16), random.getrandbits(32), random.getrandbits(32)) + os.urandom(80)
    # UDP checksum 0: none (IPv4). The kernel fills in the IP header's checksum and total length.
    udp = struct.pack("!HHHH", source[1], destination[1], 8 + len(rtp), 0) + rtp
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(source[0]), socket.inet_aton(destination[0]))
    return ip + udp


def main():
    sources, destinations, count = endpoints(sys.argv[1]), endpoints(sys.argv[2]), int(sys.argv[3])
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    raw.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    sent = 0
    for start in range(0, count, 1000):
        for _ in range(start, min(count, start + 1000)):
            for source in sources:
                for destination in destinations:
                    try:
                        raw.sendto(datagram(source, destination), (destination[0], 0))
                        sent += 1
                    except BlockingIOError:
                        pass
        time.sleep(0.04)
    print(f"sent {sent}", flush=True)


main()
