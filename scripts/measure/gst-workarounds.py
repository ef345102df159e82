#!/usr/bin/python3
"""Re-measures the GStreamer behaviours behind docs/GSTREAMER-WORKAROUNDS.md on whatever
GStreamer this python3-gi loads: run it on Debian 12 (1.22) and in a Debian 13 root (1.26)
and compare the lines. Each experiment prints one line, `§N key=value ...`, with what it saw.

  python3 scripts/measure/gst-workarounds.py [§8 §15 ...]     (default: every experiment)

Needs python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0, gstreamer1.0-plugins-good/bad.
No sound server: the pulsesink entries are measured elsewhere (the entries say how).
"""
import os
import random
import socket
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401

import experiments  # noqa: E402

Gst.init(None)
MS = Gst.MSECOND
CAPS = "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved"
FRAME = 480  # 10 ms at 48 kHz


def frame(value):
    return Gst.Buffer.new_wrapped(int(value).to_bytes(2, "little", signed=True) * FRAME)


def first_sample(buffer):
    ok, info = buffer.map(Gst.MapFlags.READ)
    value = int.from_bytes(info.data[0:2], "little", signed=True)
    buffer.unmap(info)
    return value


def pull_all(sink, timeout=2.0):
    out = []
    while True:
        sample = sink.emit("try-pull-sample", int(timeout * Gst.SECOND))
        if sample is None:
            return out
        out.append(sample.get_buffer())


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_bus(pipe, types, timeout):
    return pipe.get_bus().timed_pop_filtered(int(timeout * Gst.SECOND), types)


def e8():
    """audiobuffersplit after a lost 10 ms buffer (no DISCONT): where does the frame after the gap land?"""
    results = []
    for label, props in [("default", ""), ("threshold5ms-wait0", "alignment-threshold=5000000 discont-wait=0"),
                         ("gapless", "gapless=true")]:
        pipe = Gst.parse_launch(f"appsrc name=src format=time caps={CAPS} ! audiobuffersplit output-buffer-duration=1/100 {props} "
                                "! appsink name=sink sync=false")
        src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
        pipe.set_state(Gst.State.PLAYING)
        for i in range(20):
            if i == 5:
                continue  # the lost buffer
            b = frame(i + 1)
            b.pts, b.duration = i * 10 * MS, 10 * MS
            src.emit("push-buffer", b)
        src.emit("end-of-stream")
        frames = pull_all(sink)
        pipe.set_state(Gst.State.NULL)
        after = next((b for b in frames if first_sample(b) == 7), None)
        silence = sum(1 for b in frames if first_sample(b) == 0)
        where = f"{after.pts / MS:.1f}ms" if after else "missing"
        results.append(f"{label}: frame-after-gap pts={where} (true 60.0ms) silent-frames={silence}")
    print("§8 " + "; ".join(results))


def e9():
    """clocksync ts-offset=10 ms behind a source reporting 40 ms of latency: how long after its timestamp is a buffer let through?"""
    pipe = Gst.parse_launch(f"appsrc name=src is-live=true format=time min-latency=40000000 max-latency=40000000 caps={CAPS} "
                            "! clocksync name=cs ts-offset=10000000 sync=true ! fakesink name=sink sync=false")
    src, cs = pipe.get_by_name("src"), pipe.get_by_name("cs")
    waits = []

    def probe(pad, info):
        buffer = info.get_buffer()
        clock = pipe.get_clock()
        if clock is not None:
            now = clock.get_time() - pipe.get_base_time()
            waits.append((now - buffer.pts) / MS)
        return Gst.PadProbeReturn.OK

    cs.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
    pipe.set_state(Gst.State.PLAYING)
    wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 2)
    for i in range(30):
        clock = pipe.get_clock()
        b = frame(1000)
        b.pts, b.duration = clock.get_time() - pipe.get_base_time(), 10 * MS
        src.emit("push-buffer", b)
        time.sleep(0.01)
    time.sleep(0.2)
    pipe.set_state(Gst.State.NULL)
    waits.sort()
    print(f"§9 clocksync ts-offset=10ms, upstream latency 40ms: buffer out {waits[len(waits) // 2]:.1f} ms after its pts (median of {len(waits)}; 10 = offset only, 50 = offset + latency)")


def e10():
    """An async appsink added to a playing pipeline: does the pipeline lose PLAYING?"""
    out = []
    for asynchronous in (True, False):
        pipe = Gst.parse_launch("audiotestsrc is-live=true samplesperbuffer=480 ! fakesink sync=true")
        pipe.set_state(Gst.State.PLAYING)
        wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 2)
        time.sleep(0.3)
        bus = pipe.get_bus()
        while bus.pop():
            pass
        src = Gst.ElementFactory.make("appsrc")
        src.set_property("is-live", True)
        src.set_property("format", Gst.Format.TIME)
        src.set_property("caps", Gst.Caps.from_string(CAPS))
        sink = Gst.ElementFactory.make("appsink")
        sink.set_property("async", asynchronous)
        pipe.add(src)
        pipe.add(sink)
        src.link(sink)
        sink.sync_state_with_parent()
        src.sync_state_with_parent()
        lost = 0
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            m = bus.timed_pop_filtered(100 * MS, Gst.MessageType.STATE_CHANGED | Gst.MessageType.ASYNC_START)
            if m is None:
                continue
            if m.src == pipe and m.type == Gst.MessageType.STATE_CHANGED:
                old, new, _ = m.parse_state_changed()
                if old == Gst.State.PLAYING and new == Gst.State.PAUSED:
                    lost += 1
        _, state, pending = pipe.get_state(0)
        out.append(f"async={str(asynchronous).lower()}: pipeline now {state.value_nick} (pending {pending.value_nick})")
        pipe.set_state(Gst.State.NULL)
    print("§10 " + "; ".join(out))


def e15():
    """appsrc's queued-time figure against its queued bytes after 2 s pushed at once."""
    out = []
    for label, stamp in (("pts set", False), ("do-timestamp", True)):
        pipe = Gst.parse_launch(f"appsrc name=src is-live=true format=time do-timestamp={str(stamp).lower()} max-bytes=100000000 "
                                f"max-time=0 caps={CAPS} ! fakesink sync=true")
        src = pipe.get_by_name("src")
        pipe.set_state(Gst.State.PLAYING)
        for i in range(200):
            b = frame(100)
            if not stamp:
                b.pts = i * 10 * MS
            b.duration = 10 * MS
            src.emit("push-buffer", b)
        queued_bytes = src.get_property("current-level-bytes")
        queued_time = src.get_property("current-level-time")
        pipe.set_state(Gst.State.NULL)
        out.append(f"{label}: current-level-bytes says {queued_bytes / 96:.0f} ms, current-level-time says {queued_time / MS:.0f} ms")
    print("§15 appsrc after 2 s pushed at once: " + "; ".join(out))


def sender(port, pt, packets, drop_every=0):
    pipe = Gst.parse_launch(f"audiotestsrc is-live=true samplesperbuffer=960 num-buffers={packets} wave=sine freq=440 "
                            f"! opusenc frame-size=20 ! rtpopuspay name=pay pt={pt} ! udpsink host=127.0.0.1 port={port} sync=false")
    count = [0]

    def probe(pad, info):
        count[0] += 1
        return Gst.PadProbeReturn.DROP if drop_every and count[0] % drop_every == 0 else Gst.PadProbeReturn.OK

    pipe.get_by_name("pay").get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
    return pipe


def receive(port, caps, chain, seconds):
    pipe = Gst.parse_launch(f'udpsrc port={port} caps="{caps}" ! {chain} ! appsink name=sink sync=false')
    sink = pipe.get_by_name("sink")
    got = []

    def on_sample(s):
        b = s.emit("pull-sample").get_buffer()
        got.append(b.get_size())
        return Gst.FlowReturn.OK

    sink.set_property("emit-signals", True)
    sink.connect("new-sample", on_sample)
    return pipe, got


FORCED = "source-first, 50 ms before the rest"


def file_mic_connects(uri, order, cycles, idle=0.0, stop_at_silent=False):
    """`cycles` connects of a file microphone's chain (as AudioEngine.makeUplink builds it, processing off) to a
    fresh playing engine-like pipeline (after `idle` seconds of playing), started in `order`; returns (connects with no frame in 2 s, error messages, seconds, pipeline state after, connects made:
    with `stop_at_silent`, it stops after the first silent one)."""
    # The engine's output chain (AudioEngine.buildOutputChain with output .discard), its latency set, the system clock.
    pipe = Gst.parse_launch("audiomixer name=mix force-live=true latency=20000000 output-buffer-duration=10000000 ignore-inactive-pads=true "
                            "! capsfilter caps=audio/x-raw,format=S16LE,rate=48000,channels=2 ! volume ! level ! webrtcechoprobe name=probe "
                            "! fakesink sync=true")
    pipe.use_clock(Gst.SystemClock.obtain())
    pipe.set_latency(80 * MS)
    pipe.set_state(Gst.State.PLAYING)
    wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 5)
    time.sleep(idle)  # the engine playing that long before the first connect
    silent, errors, started = [], 0, time.monotonic()
    for cycle in range(cycles):
        decode = Gst.ElementFactory.make("uridecodebin")
        decode.set_property("uri", uri)
        body = [Gst.ElementFactory.make(f) for f in ("audioconvert", "audioresample", "capsfilter", "clocksync", "audiobuffersplit",
                                                       "level", "webrtcdsp", "level", "volume", "appsink")]
        body[2].set_property("caps", Gst.Caps.from_string(CAPS))
        body[3].set_property("ts-offset", 10 * MS)
        body[3].set_property("sync", True)
        Gst.util_set_object_arg(body[4], "output-buffer-duration", "1/100")
        body[4].set_property("alignment-threshold", 5 * MS)
        body[4].set_property("discont-wait", 0)
        dsp = body[6]
        dsp.set_property("probe", "probe")
        for name in ("echo-cancel", "noise-suppression", "gain-control", "high-pass-filter"):
            dsp.set_property(name, False)
        sink = body[-1]
        sink.set_property("caps", Gst.Caps.from_string(CAPS))
        for name, value in (("max-buffers", 100), ("drop", True), ("sync", False), ("async", False), ("emit-signals", True)):
            sink.set_property(name, value)
        frames = [0]

        def on_sample(s, frames=frames):
            s.emit("pull-sample")
            frames[0] += 1
            return Gst.FlowReturn.OK
        sink.connect("new-sample", on_sample)
        elements = [decode] + body
        for e in elements:
            pipe.add(e)
        for a, b in zip(body, body[1:]):
            a.link(b)
        first = body[0].get_static_pad("sink")

        def pad_added(element, pad, first=first):
            caps = pad.query_caps(None)
            if caps.get_size() == 0 or not caps.get_structure(0).get_name().startswith("audio/") or first.is_linked():
                return
            # The file starts now: its timestamps shifted to the pipeline's running time.
            clock = pipe.get_clock()
            pad.set_offset(clock.get_time() - pipe.get_base_time() if clock else 0)
            pad.link(first)
        decode.connect("pad-added", pad_added)
        for e in (list(reversed(elements)) if order == "sink-first" else elements):
            e.sync_state_with_parent()
            if e is decode and order == FORCED:
                time.sleep(0.05)  # the race's window held open: does the decoder still stop for good, with no error?
        deadline = time.monotonic() + 2.0
        while frames[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
        done = cycle + 1
        if frames[0] == 0:
            silent.append(cycle)
            if os.environ.get("E16_VERBOSE"):
                clock = pipe.get_clock()
                print(f"    {order}: connect {cycle} silent at running time {(clock.get_time() - pipe.get_base_time()) / Gst.SECOND:.1f} s", flush=True)
        while True:  # error messages from this connect (the entry: none was posted)
            msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
            if msg is None:
                break
            errors += 1
        # Torn down as tearDownMicrophone does: locked, NULL from the sink end, removed.
        for e in elements:
            e.set_locked_state(True)
        for e in reversed(elements):
            e.set_state(Gst.State.NULL)
        for e in elements:
            pipe.remove(e)
        if silent and stop_at_silent:
            break
    _, state, _ = pipe.get_state(0)
    pipe.set_state(Gst.State.NULL)
    return silent, errors, time.monotonic() - started, state.value_nick, done


def e16(cycles=int(os.environ.get("E16_CYCLES", "300"))):
    """File microphone connects started source-first (flow order) or sink-first (the workaround), each row in a fresh
    pipeline: in how many does no frame reach the chain's appsink within 2 s? For the test's 1 s WAV tone
    (FileMicrophoneTests) and student-mic.ogg; and, to show what the race does when it happens, 20 source-first
    connects with 50 ms between starting the decoder and the rest."""
    import math
    import struct
    import tempfile
    folder = tempfile.mkdtemp(prefix="e16-", dir=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "out"))
    wav = os.path.join(folder, "voice.wav")
    tone = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 48000))) for i in range(48000))
    with open(wav, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(tone)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 48000, 96000, 2, 16)
                + b"data" + struct.pack("<I", len(tone)) + tone)
    ogg = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "student-mic.ogg"))
    out = []
    # A fresh pipeline every 25 connects and after each silent one: the ogg's segment ends at 5.94 s, and volume (a GstAudioFilter) clips
    # webrtcdsp's output, restamped to running time, to it: nothing gets through once the running time passes the
    # file's length (the last row; a wav's segment has no stop).
    block = 25
    for label, path in (("wav", wav), ("ogg", ogg)):
        for order in ("source-first", "sink-first", FORCED):
            rows = cycles if order != FORCED else min(cycles, 20)
            silent, errors, seconds, states = [], 0, 0.0, set()
            first = 0
            while first < rows:  # a new pipeline after each silent connect too: 2 s more of running time each
                s_, e_, t_, state, done = file_mic_connects(Gst.filename_to_uri(path), order, min(block, rows - first), stop_at_silent=True)
                silent += [first + i for i in s_]
                errors, seconds, first = errors + e_, seconds + t_, first + done
                states.add(state)
            out.append(f"{label} {order}: {len(silent)} of {rows} connects with no frame in 2 s"
                       f"{' ' + str(silent) if silent and len(silent) < 20 else ''} ({errors} error messages, pipeline {'/'.join(states)} after, {seconds:.0f} s)")
            print("  " + out[-1], flush=True)
    for label, path in (("wav", wav), ("ogg", ogg)):
        for idle in (1.0, 8.0):
            silent, errors, seconds, state, _ = file_mic_connects(Gst.filename_to_uri(path), "sink-first", 3, idle=idle)
            out.append(f"{label} sink-first connected {idle:.0f} s into a pipeline: {len(silent)} of 3 with no frame in 2 s")
            print("  " + out[-1], flush=True)
    os.remove(wav)
    os.rmdir(folder)
    print("§16 file microphone chain added to a playing pipeline: " + "; ".join(out))

def e18():
    """udpsrc caps without payload, a sender on pt 111: does the jitter buffer pass it?"""
    port = free_port()
    rx, got = receive(port, "application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000",
                      "rtpjitterbuffer ! rtpopusdepay ! opusdec", 0)
    rx.set_state(Gst.State.PLAYING)
    tx = sender(port, 111, 100)
    tx.set_state(Gst.State.PLAYING)
    wait_bus(tx, Gst.MessageType.EOS, 5)
    time.sleep(0.5)
    caps = rx.get_by_name("sink").get_static_pad("sink").get_current_caps()
    tx.set_state(Gst.State.NULL)
    rx.set_state(Gst.State.NULL)
    print(f"§18 pt 111 into udpsrc caps without payload ! rtpjitterbuffer ! rtpopusdepay ! opusdec: {sum(got) / 2 / 2 / 48000:.2f} s decoded of 2.00 s sent")


SRTP_KEY = bytes(range(1, 31))          # 16 bytes of AES-128 key and 14 of salt
WRONG_KEY = bytes(range(101, 131))
SRTP_PARAMS = "srtp-cipher=aes-128-icm,srtp-auth=hmac-sha1-80,srtcp-cipher=aes-128-icm,srtcp-auth=hmac-sha1-80"


def srtp_packets(ssrc, key, packets):
    """`packets` L16 RTP packets of one SSRC encrypted by srtpenc (its own key caps are not kept: only the bytes)."""
    pipe = Gst.parse_launch(f"audiotestsrc num-buffers={packets} samplesperbuffer=480 ! audio/x-raw,format=S16BE,rate=48000,channels=1 "
                            f"! rtpL16pay pt=96 ssrc={ssrc} ! srtpenc name=enc rtp-cipher=aes-128-icm rtp-auth=hmac-sha1-80 "
                            "rtcp-cipher=aes-128-icm rtcp-auth=hmac-sha1-80 ! appsink name=sink sync=false")
    pipe.get_by_name("enc").set_property("key", Gst.Buffer.new_wrapped(key))
    sink = pipe.get_by_name("sink")
    pipe.set_state(Gst.State.PLAYING)
    out = []
    for b in pull_all(sink, 2.0):  # appsink posts EOS only once emptied: pull until it says EOS
        ok, info = b.map(Gst.MapFlags.READ)
        out.append(bytes(info.data))
        b.unmap(info)
    pipe.set_state(Gst.State.NULL)
    return out


def e19():
    """srtpdec with the key on its caps (no ssrc): packets of a second SSRC out, without and with a request-key answer."""
    count = 50
    caps = ("application/x-srtp,media=audio,clock-rate=48000,encoding-name=L16,channels=1,payload=96,"
            f"srtp-key=(buffer){SRTP_KEY.hex()},{SRTP_PARAMS}")
    first, second = 0x1111AAAA, 0x2222BBBB

    def decrypt(packets, sink_caps, answer):
        # appsrc stands for udpsrc: srtpdec sees only these caps, not the key srtpenc put on its own.
        pipe = Gst.parse_launch(f'appsrc name=src format=time caps="{sink_caps}" ! srtpdec name=dec ! appsink name=sink sync=false')
        dec, src, sink = pipe.get_by_name("dec"), pipe.get_by_name("src"), pipe.get_by_name("sink")
        asked = []
        if answer:
            def request_key(element, ssrc):
                asked.append(ssrc)
                return Gst.Caps.from_string(caps)
            dec.connect("request-key", request_key)
        # Held at srtpdec until every packet is queued and Python holds none of them: srtpdec decrypts a
        # shared (not writable) buffer into a copy and pushes the encrypted original on (seen here on 1.22).
        pad = dec.get_static_pad("rtp_sink")
        hold = pad.add_probe(Gst.PadProbeType.BLOCK | Gst.PadProbeType.BUFFER, lambda pad, info: Gst.PadProbeReturn.OK)
        pipe.set_state(Gst.State.PLAYING)
        for i, data in enumerate(packets):
            b = Gst.Buffer.new_wrapped(data)
            b.pts = i * 10 * MS
            src.emit("push-buffer", b)
        b = None
        src.emit("end-of-stream")
        pad.remove_probe(hold)
        by_ssrc, encrypted = {first: 0, second: 0}, 0
        for b in pull_all(sink, 5.0):  # until EOS
            ok, info = b.map(Gst.MapFlags.READ)
            ssrc = int.from_bytes(info.data[8:12], "big")
            size = info.size
            b.unmap(info)
            if size == 12 + 2 * 480:  # decrypted: RTP header and payload, the 10-byte tag gone
                by_ssrc[ssrc] = by_ssrc.get(ssrc, 0) + 1
            else:
                encrypted += 1
        b = None
        pipe.set_state(Gst.State.NULL)
        return (f"first {by_ssrc[first]}, second {by_ssrc[second]} of {count}" + (f" (request-key asked {len(asked)}x)" if answer else "")
                + (f" [{encrypted} out still encrypted]" if encrypted else ""))

    out = []
    for label, first_key in (("first sender same key", SRTP_KEY), ("first sender wrong key", WRONG_KEY)):
        packets = srtp_packets(first, first_key, count) + srtp_packets(second, SRTP_KEY, count)
        out.append(f"{label}: without request-key answer {decrypt(packets, caps, False)}; with it {decrypt(packets, caps, True)}")
    # Control: the same caps with the first sender's ssrc, which srtpdec does read its key from.
    packets = srtp_packets(first, SRTP_KEY, count) + srtp_packets(second, SRTP_KEY, count)
    out.append(f"control, caps with ssrc={first} and no answer: {decrypt(packets, caps + f',ssrc=(uint){first}', False)}")
    print("§19 srtpdec, key on its sink caps without ssrc, packets out per SSRC: " + "; ".join(out))


def e20():
    """Every 10th of 201 packets dropped: how much does opusdec put out, with and without do-lost?"""
    out = []
    for label, jb, dec in [("plc", "rtpjitterbuffer latency=60", "opusdec plc=true"),
                           ("plc+do-lost", "rtpjitterbuffer latency=60 do-lost=true", "opusdec plc=true")]:
        port = free_port()
        rx, got = receive(port, "application/x-rtp,media=audio,encoding-name=OPUS,clock-rate=48000,payload=96",
                          f"{jb} ! rtpopusdepay ! {dec}", 0)
        rx.set_state(Gst.State.PLAYING)
        tx = sender(port, 96, 201, drop_every=10)
        tx.set_state(Gst.State.PLAYING)
        wait_bus(tx, Gst.MessageType.EOS, 8)
        time.sleep(0.6)
        tx.set_state(Gst.State.NULL)
        rx.set_state(Gst.State.NULL)
        out.append(f"{label}: {sum(got) / 4 / 48000:.2f} s out")
    print("§20 201 packets (4.02 s), every 10th dropped: " + "; ".join(out))


def e21():
    """Speech (samples/student-mic.ogg) through opusenc (20 ms, with and without inband FEC), every 10th packet
    dropped before a do-lost jitter buffer: SNR of the lost packets' 20 ms (and of the packet after each) against
    the same packets decoded without loss, for opusdec use-inband-fec=true and for PLC alone. As
    OpusFECDecoderTests.lostSpeechRebuilt, with opusdec's own FEC decoding in place of OpusFECDecoder."""
    import numpy
    speech = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "student-mic.ogg")
    out = []
    for sender in ("inband-fec=true packet-loss-percentage=10", "inband-fec=false"):
        # Real-time pacing (clocksync), so the jitter buffers declare losses as on a network.
        pipe = Gst.parse_launch(
            f"filesrc location={speech} ! oggdemux ! opusdec ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=1 ! clocksync ! "
            f"opusenc frame-size=20 audio-type=voice {sender} ! rtpopuspay ! tee name=t "
            "t. ! queue ! rtpopusdepay ! opusdec ! appsink name=lossless "
            "t. ! queue ! identity name=lossy-plc ! rtpjitterbuffer do-lost=true latency=60 ! rtpopusdepay ! opusdec plc=true ! appsink name=plc "
            "t. ! queue ! identity name=lossy-fec ! rtpjitterbuffer do-lost=true latency=60 ! rtpopusdepay ! opusdec plc=true use-inband-fec=true ! appsink name=fec")
        recordings = {}
        lost = set()
        packets = [0]
        for name in ("lossless", "plc", "fec"):
            sink = pipe.get_by_name(name)
            sink.set_property("caps", Gst.Caps.from_string("audio/x-raw,format=S16LE,rate=48000,channels=1"))
            sink.set_property("sync", False)
            sink.set_property("emit-signals", True)
            recording = recordings.setdefault(name, {})

            def on_sample(sink, recording=recording):
                buffer = sink.emit("pull-sample").get_buffer()
                ok, info = buffer.map(Gst.MapFlags.READ)
                recording[round(buffer.pts * 48000 / Gst.SECOND)] = numpy.frombuffer(bytes(info.data), dtype="<i2").astype(float)
                buffer.unmap(info)
                return Gst.FlowReturn.OK
            sink.connect("new-sample", on_sample)
        for name in ("lossy-plc", "lossy-fec"):
            count = [0]

            def probe(pad, info, count=count, name=name):
                count[0] += 1
                if name == "lossy-plc":
                    packets[0] = count[0]
                if count[0] % 10 == 0:
                    lost.add(round(info.get_buffer().pts * 48000 / Gst.SECOND))
                    return Gst.PadProbeReturn.DROP
                return Gst.PadProbeReturn.OK
            pipe.get_by_name(name).get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
        pipe.set_state(Gst.State.PLAYING)
        msg = wait_bus(pipe, Gst.MessageType.EOS | Gst.MessageType.ERROR, 20)
        pipe.set_state(Gst.State.NULL)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            out.append(f"sender {sender}: pipeline {'error ' + str(msg.parse_error()[0].message) if msg else 'did not end in 20 s'}")
            continue

        def signal(recording):
            end = max(k + len(v) for k, v in recording.items())
            x = numpy.zeros(end)
            for k, v in recording.items():
                x[k:k + len(v)] = v
            return x

        ref = signal(recordings["lossless"])

        # Placed by timestamp, a branch can sit a sample off the lossless one (each branch's first timestamp
        # rounds on its own): shifted by the lag at which the two agree best, found over the whole stream.
        lags, aligned = {}, {}
        for name in ("plc", "fec"):
            x = signal(recordings[name])
            n = min(len(x), len(ref)) - 2000
            lag = lags[name] = max(range(-960, 961), key=lambda lag: float(numpy.dot(ref[2000:n], x[2000 + lag:n + lag])))
            aligned[name] = x[lag:] if lag >= 0 else numpy.concatenate([numpy.zeros(-lag), x])

        def snr(name, starts):
            x = aligned[name]
            n = min(len(x), len(ref))
            e = d = 0.0
            for first in starts:
                r, y = ref[first:min(first + 960, n)], x[first:min(first + 960, n)]
                e += float(numpy.sum(r * r))
                d += float(numpy.sum((y - r) ** 2))
            return 10 * numpy.log10(max(e, 1) / max(d, 1))

        starts = sorted(lost)
        after = [s + 960 for s in starts]
        others = sorted(set(range(min(recordings["lossless"]), len(ref) - 960, 960)) - set(starts) - set(after))
        out.append(f"sender {sender}: {len(starts)} of {packets[0]} packets lost (decodes shifted {lags['fec']} / {lags['plc']} samples to the lossless one); lost packets' SNR: use-inband-fec=true {snr('fec', starts):.1f} dB, "
                   f"PLC alone {snr('plc', starts):.1f} dB; the packet after each: {snr('fec', after):.1f} / {snr('plc', after):.1f} dB; "
                   f"the other packets: {snr('fec', others):.1f} / {snr('plc', others):.1f} dB")
    print("§21 student-mic.ogg, opusenc frame-size=20 audio-type=voice, every 10th packet dropped before rtpjitterbuffer do-lost=true latency=60, "
          "against the lossless decode: " + "; ".join(out))


def e22():
    """opusdec's reported latency with and without use-inband-fec."""
    out = []
    for fec in ("false", "true"):
        pipe = Gst.parse_launch(f"audiotestsrc is-live=true ! opusenc ! opusdec plc=true use-inband-fec={fec} ! fakesink name=sink")
        pipe.set_state(Gst.State.PLAYING)
        wait_bus(pipe, Gst.MessageType.ASYNC_DONE, 3)
        q = Gst.Query.new_latency()
        pipe.get_by_name("sink").get_static_pad("sink").peer_query(q)
        live, minimum, maximum = q.parse_latency()
        pipe.set_state(Gst.State.NULL)
        out.append(f"use-inband-fec={fec}: min latency {minimum / MS:.1f} ms")
    print("§22 audiotestsrc is-live ! opusenc ! opusdec: " + "; ".join(out))


def e23():
    """A live audiomixer, 10 ms frames pushed contiguously in real time, then 30 ms of nothing and a frame
    stamped at its own running time: where is that frame's first sample in the mix, with and without DISCONT?"""
    out = []
    for discont in (False, True):
        pipe = Gst.parse_launch(f"appsrc name=src is-live=true format=time caps={CAPS} ! audiomixer name=m force-live=true "
                                f"latency=40000000 output-buffer-duration=10000000 ! capsfilter caps={CAPS} ! appsink name=sink sync=false")
        src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
        clock = Gst.SystemClock.obtain()
        pipe.use_clock(clock)
        pipe.set_start_time(Gst.CLOCK_TIME_NONE)  # the running time is clock - base from here on (§29)
        base = clock.get_time()
        pipe.set_base_time(base)
        placed = []

        def probe(pad, info):
            buffer = info.get_buffer()
            if placed:
                return Gst.PadProbeReturn.OK
            ok, mapped = buffer.map(Gst.MapFlags.READ)
            data = mapped.data
            for index in range(0, len(data), 2):
                if int.from_bytes(data[index:index + 2], "little", signed=True) > 10000:
                    segment = pad.get_sticky_event(Gst.EventType.SEGMENT, 0).parse_segment()
                    running = segment.to_running_time(Gst.Format.TIME, buffer.pts)
                    placed.append(running + Gst.util_uint64_scale(index // 2, Gst.SECOND, 48000))
                    break
            buffer.unmap(mapped)
            return Gst.PadProbeReturn.OK

        sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
        pipe.set_state(Gst.State.PLAYING)

        def now():
            return clock.get_time() - base

        def until(running):
            delay = (running - now()) / Gst.SECOND
            if delay > 0:
                time.sleep(delay)

        for i in range(100):  # 1 s of 10 ms frames, stamped contiguously and pushed on their own time
            until(i * 10 * MS)
            b = frame(0)
            b.pts, b.duration = i * 10 * MS, 10 * MS
            src.emit("push-buffer", b)
        until(1030 * MS)  # 30 ms with nothing pushed
        marker = Gst.Buffer.new_wrapped((20000).to_bytes(2, "little", signed=True) + bytes(2 * FRAME - 2))
        stamped = now()
        marker.pts, marker.duration = stamped, 10 * MS
        if discont:
            marker.set_flags(Gst.BufferFlags.DISCONT)
        src.emit("push-buffer", marker)
        for i in range(1, 31):
            until(stamped + i * 10 * MS)
            b = frame(0)
            b.pts, b.duration = stamped + i * 10 * MS, 10 * MS
            src.emit("push-buffer", b)
        time.sleep(0.1)
        pipe.set_state(Gst.State.NULL)
        where = f"{(placed[0] - stamped) / MS:+.1f} ms" if placed else "not found"
        out.append(f"{'with' if discont else 'without'} DISCONT: first sample placed {where} from its own running time")
    print("§23 live audiomixer (alignment-threshold 40 ms), a frame stamped 30 ms after the previous one ended: " + "; ".join(out))


VOICE = {"echo-cancel": True, "noise-suppression": True, "high-pass-filter": True, "gain-control": False}
OFF = {"echo-cancel": False, "noise-suppression": False, "high-pass-filter": False, "gain-control": False}


def switch_run(element, probe_types, switches, queries):
    """The uplink's chain (a live appsrc fed every 10 ms ! … ! audiobuffersplit ! level ! `element` ! … ! sink; a fakesink
    for the engine's appsink, which is pulled at once: an appsink nobody pulls blocks the stream on a full queue),
    `switches` restarts of `element` through NULL from a `probe_types` probe on the framer's src pad, 50–60 ms apart,
    latency queries crossing the chain meanwhile. Returns frames out after the switches (in 500 ms), the source
    task's state and last flow, and on which threads the restarts ran."""
    dsp = element == "webrtcdsp"
    echo = (" audiotestsrc is-live=true wave=silence samplesperbuffer=480 ! audio/x-raw,format=S16LE,rate=48000,channels=1 "
            "! webrtcechoprobe name=echo ! fakesink sync=true") if dsp else ""
    pipe = Gst.parse_launch(f"appsrc name=src is-live=true format=time caps={CAPS} max-time=1000000000 max-bytes=0 leaky-type=downstream "
                            f"! audioconvert ! audioresample ! capsfilter caps={CAPS} ! clocksync ts-offset=10000000 sync=true "
                            "! audiobuffersplit name=split output-buffer-duration=1/100 alignment-threshold=5000000 discont-wait=0 "
                            f"! level ! {element} name=dsp {'probe=echo' if dsp else ''} ! level ! volume "
                            "! fakesink name=sink sync=false async=false" + echo)
    src, split, target, sink = (pipe.get_by_name(n) for n in ("src", "split", "dsp", "sink"))
    if dsp:
        for key, value in VOICE.items():
            target.set_property(key, value)
    clock = Gst.SystemClock.obtain()
    pipe.use_clock(clock)
    pipe.set_start_time(Gst.CLOCK_TIME_NONE)
    base = clock.get_time()
    pipe.set_base_time(base)
    frames = [0]
    streaming = set()

    def count(pad, info):
        frames[0] += 1
        return Gst.PadProbeReturn.OK

    def note_thread(pad, info):
        streaming.add(threading.get_ident())
        return Gst.PadProbeReturn.OK

    sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, count)
    split.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, note_thread)
    pipe.set_state(Gst.State.PLAYING)
    stop = threading.Event()
    querier_id = [None]

    def feeder():
        i = 0
        while not stop.is_set():
            b = frame(3000)
            b.pts, b.duration = i * 10 * MS, 10 * MS
            src.emit("push-buffer", b)
            i += 1
            delay = ((i * 10 * MS) - (clock.get_time() - base)) / Gst.SECOND
            if delay > 0:
                time.sleep(delay)

    def querier():  # what the engine does on every LATENCY message: a latency query up the chain
        querier_id[0] = threading.get_ident()
        while not stop.is_set():
            pipe.recalculate_latency()
            if queries > 0:
                time.sleep(queries)

    threads = [threading.Thread(target=feeder)] + ([threading.Thread(target=querier)] if queries is not None else [])
    for t in threads:
        t.start()
    ran_on, failures, pending, switch_calls = [], [0], [None], []
    caller = threading.get_ident()
    pad = split.get_static_pad("src")
    try:
        time.sleep(0.2)
        for cycle in range(switches):
            time.sleep(0.05 + random.random() * 0.01)  # every phase against the 10 ms frames
            settings = [OFF, VOICE][cycle % 2]
            done = threading.Event()
            calls = []

            def restart(pad, info, settings=settings, done=done, calls=calls):
                ran_on.append(threading.get_ident())
                calls.append(1)
                if target.set_state(Gst.State.NULL) == Gst.StateChangeReturn.FAILURE:
                    failures[0] += 1
                if dsp:
                    for key, value in settings.items():
                        target.set_property(key, value)
                if not target.sync_state_with_parent():
                    failures[0] += 1
                done.set()
                return Gst.PadProbeReturn.REMOVE

            if pending[0] is not None:  # a later switch supersedes one still pending
                if not pending[0][1].is_set():
                    pad.remove_probe(pending[0][0])
                pending[0] = None
            probe = pad.add_probe(probe_types, restart)
            if probe and not done.wait(0.1 if probe_types & Gst.PadProbeType.BUFFER else 2.0):
                pending[0] = (probe, done)
            switch_calls.append(calls)
        after = frames[0]
        time.sleep(0.5)
        later = frames[0] - after
        task = src.get_static_pad("src").get_task_state()
        flow = src.get_static_pad("src").get_last_flow_return()
        blocked = pad.is_blocked()
        target_state = target.get_state(0)[1]
    finally:
        stop.set()
        for t in threads:
            t.join()
        pipe.set_state(Gst.State.NULL)
    where = {"caller": sum(1 for t in ran_on if t == caller), "query": sum(1 for t in ran_on if t == querier_id[0]),
             "streaming": sum(1 for t in ran_on if t in streaming)}
    where["twice"] = sum(1 for calls in switch_calls if len(calls) > 1)
    where["blocked"] = blocked
    where["state"] = target_state.value_nick
    return after, later, task, flow, where, failures[0]


def e25(runs=25, switches=40):
    """Restarting an element through NULL from an IDLE|BLOCK probe (the old switch) against a BLOCK|BUFFER probe
    (the streaming thread's), latency queries beside: in how many runs does the live source's task end paused?"""
    elements = (["webrtcdsp"] if Gst.ElementFactory.find("webrtcdsp") else []) + ["audioconvert"]
    kinds = [("IDLE|BLOCK", Gst.PadProbeType.BLOCKING),
             ("BLOCK|BUFFER", Gst.PadProbeType.BLOCK | Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST)]
    out = []
    for element in elements:
        for label, types in kinds:
            stopped, paused, failed, flowing = 0, 0, 0, []
            threads = {"caller": 0, "query": 0, "streaming": 0, "twice": 0}
            for _ in range(runs):
                after, later, task, flow, where, failures = switch_run(element, types, switches, queries=0.0005)
                stopped += later == 0
                paused += task == Gst.TaskState.PAUSED and flow == Gst.FlowReturn.FLUSHING
                failed += failures
                flowing.append(later)
                for k in threads:
                    threads[k] += where[k]
            out.append(f"{element} from {label}: no frame in the 500 ms after the switches in {stopped} of {runs} runs, source task paused on 'flushing' in {paused} "
                       f"(frames in the 500 ms after: {' '.join(map(str, flowing))}; restart callbacks on caller/query/streaming thread "
                       f"{threads['caller']}/{threads['query']}/{threads['streaming']} for {runs * switches} switches, "
                       f"{threads['twice']} switches ran it twice; failed restarts {failed})")
    print(f"§25 {switches} restarts through NULL per run, latency queries beside: " + "; ".join(out))


def e29(starts=100):
    """A force-live audiomixer with chains after it, started as the pipeline chooses its base time and
    with the base time fixed first: in how many starts does a buffer leave before its deadline?"""
    chains = {
        "engine": "audiomixer name=m force-live=true latency=40000000 output-buffer-duration=10000000 ! "
                  "capsfilter caps=audio/x-raw,format=S16LE,rate=48000,channels=2 ! volume ! level ! fakesink sync=false async=false",
        "uplink": f"appsrc is-live=true format=time caps={CAPS} ! audiomixer name=m force-live=true latency=20000000 "
                  "output-buffer-duration=10000000 ! audioconvert ! opusenc ! rtpopuspay ! fakesink",
    }
    out = []
    for chain, description in chains.items():
        for fixed in (False, True):
            bad, worst = 0, 0
            for _ in range(starts):
                pipe = Gst.parse_launch(description)
                clock = Gst.SystemClock.obtain()
                pipe.use_clock(clock)
                mixer = pipe.get_by_name("m")
                latency = mixer.get_property("latency")
                early = []

                def probe(pad, info, pipe=pipe, latency=latency, early=early):
                    buffer = info.get_buffer()
                    if pipe.get_clock() is not None:
                        now = pipe.get_clock().get_time() - pipe.get_base_time()
                        deadline = buffer.pts + buffer.duration + latency
                        if now + 2 * MS < deadline:  # 2 ms for the clock wait's granularity
                            early.append(deadline - now)
                    return Gst.PadProbeReturn.OK

                mixer.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, probe)
                if fixed:
                    pipe.set_start_time(Gst.CLOCK_TIME_NONE)
                    pipe.set_base_time(clock.get_time())
                pipe.set_state(Gst.State.PLAYING)
                time.sleep(0.15)
                pipe.set_state(Gst.State.NULL)
                if early:
                    bad += 1
                    worst = max(worst, max(early))
            out.append(f"{chain} {'base time first' if fixed else 'pipeline base time'}: {bad}/{starts} starts early (most {worst / MS:.1f} ms)")
    print("§29 force-live audiomixer's first buffers before their deadline: " + "; ".join(out))


EXPERIMENTS = {"§8": e8, "§9": e9, "§10": e10, "§15": e15, "§16": e16, "§18": e18, "§19": e19, "§20": e20, "§21": e21, "§22": e22, "§23": e23,
               "§25": e25, "§29": e29}

if __name__ == "__main__":
    experiments.run(EXPERIMENTS)
