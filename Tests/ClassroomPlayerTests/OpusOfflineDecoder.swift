import Foundation

/// Decodes recorded Opus packets offline with libopus (python3's ctypes, Debian's libopus0), as a
/// receiver that decodes in-band FEC does (browsers, ffmpeg, Janus): a lost packet is rebuilt from
/// the FEC copy in the packet after it, or concealed (PLC) when that has none. Offline, every lost
/// packet gets exactly its own duration, so the output stays sample-aligned with a lossless
/// decode: a real-time receiver's jitter buffer sized each gap from arrival times, and on a loaded
/// machine its FEC rebuilt lost speech at 4–7 dB instead of 19 (3 runs in 8).
enum OpusOfflineDecoder {
    private static let script = #"""
    import ctypes, json, struct, sys
    opus = ctypes.CDLL("libopus.so.0")
    opus.opus_decoder_create.restype = ctypes.c_void_p
    opus.opus_decode.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int16), ctypes.c_int, ctypes.c_int]
    packets, samples_per_packet, out = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
    error = ctypes.c_int()
    decoder = opus.opus_decoder_create(48000, 1, ctypes.byref(error))
    if error.value != 0: sys.exit("opus_decoder_create: %d" % error.value)
    pcm = (ctypes.c_int16 * samples_per_packet)()
    with open(out, "wb") as sink:
        for index, packet in enumerate(packets):
            if packet["lost"]:
                after = packets[index + 1] if index + 1 < len(packets) and not packets[index + 1]["lost"] else None
                data = bytes.fromhex(after["payload"]) if after else None
                got = opus.opus_decode(decoder, data, len(data) if data else 0, pcm, samples_per_packet, 1 if data else 0)
            else:
                data = bytes.fromhex(packet["payload"])
                got = opus.opus_decode(decoder, data, len(data), pcm, samples_per_packet, 0)
            if got != samples_per_packet: sys.exit("packet %d decoded to %d samples, not %d" % (index, got, samples_per_packet))
            sink.write(struct.pack("<%dh" % got, *pcm[:got]))
    """#

    /// The mono 48 kHz samples of `payloads` (in order, nil where lost), `samplesPerPacket` each, scaled to ±1.
    static func decode(_ payloads: [[UInt8]?], samplesPerPacket: Int, in folder: URL) throws -> [Float] {
        let code = folder.appendingPathComponent("opus-decode.py")
        try script.write(to: code, atomically: true, encoding: .utf8)
        let input = folder.appendingPathComponent("opus-packets-\(UUID().uuidString).json")
        let output = input.deletingPathExtension().appendingPathExtension("s16")
        let list = payloads.map { payload -> [String: Any] in
            ["lost": payload == nil, "payload": (payload ?? []).map { String(format: "%02x", $0) }.joined()]
        }
        try JSONSerialization.data(withJSONObject: list).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [code.path, input.path, "\(samplesPerPacket)", output.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let why = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw PlayerTestError.setupFailed("decoding the recorded Opus packets failed: \(why)")
        }
        let data = try Data(contentsOf: output)
        return data.withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { Float($0) / 32_768 } }
    }
}
