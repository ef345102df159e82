#!/usr/bin/python3
"""What the class hears when the network path to a live feed stalls once: the packets held for
STALL ms and then delivered together (Wi-Fi does this), every 10th packet lost as in the suite.

A live 440 Hz tone in 20 ms Opus packets (gst-launch-1.0, real time) ► a relay on 127.0.0.1 (this
script) ► classroom-player play SILENT-LESSON --live teacher=rtp://… --output wav:… ; the relay
holds what arrives from 1.5 s on for STALL ms. Printed per stall: the mix's 10 ms windows below
-60 dBFS between the tone's first and last sound (digital silence, not concealment) and the
player's live-* events (jitter-buffer moves, loss recovery).

  python3 scripts/measure/path-stall.py .build/debug/classroom-player 0 40 80 160

What to look for (GST_DEBUG=rtpjitterbuffer:6 on the player): rtpjitterbuffer declares a packet
lost (do-lost, which the decoder conceals) only when a later one reveals the gap, so while nothing
arrives nothing is pushed and the mixer plays that input as silence; a packet that then arrives
later than its time plus the buffer's latency resets the buffer's timeline ("reset jitterbuffer and
discard"), and the adaptive buffer's raise that follows re-anchors the input, one more silence.

Needs gstreamer1.0-plugins-base/good (opusenc, rtpopuspay); no sound server.
"""
import array
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import wave

STALL_AT = 1.5


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def relay(inbound, forward, stall_ms, report):
    """Forwards every packet but each 10th; holds those arriving in the stall and sends them at its end."""
    outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    inbound.settimeout(15)
    first, held, count = None, [], 0
    while True:
        try:
            data, _ = inbound.recvfrom(2048)
        except socket.timeout:
            break
        now = time.monotonic()
        first = first or now
        count += 1
        inbound.settimeout(1.5)
        if count % 10 == 0:
            continue
        if STALL_AT <= now - first < STALL_AT + stall_ms / 1000:
            held.append(data)
            continue
        if held:
            report.append(f"{len(held)} packets held {stall_ms} ms, released at {now - first:.3f} s")
        for packet in held + [data]:
            outbound.sendto(packet, ("127.0.0.1", forward))
        held = []


def silent_windows(path):
    with wave.open(path) as audio:
        channels, rate = audio.getnchannels(), audio.getframerate()
        samples = array.array("h", audio.readframes(audio.getnframes()))
    first_channel = samples[::channels]
    step = rate // 100
    levels = []
    for start in range(0, len(first_channel) - step, step):
        window = first_channel[start:start + step]
        power = sum(value * value for value in window) / step
        levels.append(10 * math.log10(power / 32768 ** 2) if power > 0 else -200)
    sound = [index for index, level in enumerate(levels) if level > -30]
    if len(sound) < 20:
        return None
    return [round(index / 100, 2) for index in range(sound[0] + 5, sound[-1] - 4) if levels[index] < -60]


def run(player, stall_ms, folder):
    lesson, mix, events = (os.path.join(folder, name) for name in ("silence.wav", f"mix-{stall_ms}.wav", f"events-{stall_ms}.jsonl"))
    with wave.open(lesson, "wb") as silent:
        silent.setnchannels(2)
        silent.setsampwidth(2)
        silent.setframerate(48000)
        silent.writeframes(b"\0" * 4 * 48000 * 7)
    inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    inbound.bind(("127.0.0.1", 0))
    feed, report = free_port(), []
    thread = threading.Thread(target=relay, args=(inbound, feed, stall_ms, report))
    thread.start()
    played = subprocess.Popen([player, "play", lesson, "--live", f"teacher=rtp://127.0.0.1:{feed}", "--mic", "none",
                               "--output", f"wav:{mix}", "--events", events, "--no-stdin"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not (os.path.exists(events) and "started" in open(events).read()):
        time.sleep(0.1)
    subprocess.run(["gst-launch-1.0", "-q", "audiotestsrc", "is-live=true", "num-buffers=150", "samplesperbuffer=960", "freq=440",
                    "volume=0.3", "!", "audio/x-raw,rate=48000,channels=1", "!", "opusenc", "audio-type=voice", "!",
                    "rtpopuspay", "pt=96", "!", "udpsink", "host=127.0.0.1", f"port={inbound.getsockname()[1]}"], check=True)
    played.wait(timeout=30)
    thread.join()
    said = [json.loads(line) for line in open(events)]
    said = [event["event"] + (f" {event['ms']} ms" if "ms" in event else "") + f" at {event['t']} s" for event in said if event["event"].startswith("live-")]
    silent = silent_windows(mix)
    print(f"stall {stall_ms} ms: {'no tone heard' if silent is None else f'{len(silent)} silent 10 ms windows at {silent} s'}; "
          f"{'; '.join(report) or 'nothing held'}; the player said: {', '.join(said)}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as folder:
        for stall in sys.argv[2:]:
            run(sys.argv[1], int(stall), folder)


if __name__ == "__main__":
    main()
