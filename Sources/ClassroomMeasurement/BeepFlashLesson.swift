import Foundation
import GStreamer

/// A 10 s VP8 + Vorbis WebM lesson, written at run time: the picture is black and turns white at
/// 0.5 s, 1.5 s, … (videotestsrc `blink` at 2 frames/s), and a 50 ms 1 kHz beep starts on the
/// sample at each of those instants (pushed through an appsrc, so it is exact).
public enum BeepFlashLesson {
    /// When the flashes and beeps start.
    public static let events: [ClockTime] = (0..<10).map { ClockTime.milliseconds(500 + 1000 * $0) }

    /// Writes the lesson to `path`.
    public static func write(to path: String) throws {
        let pipeline = try Pipeline.parse("""
            appsrc name=beeps ! audioconvert ! vorbisenc ! webmmux name=mux ! filesink location=\(path) \
            videotestsrc pattern=blink num-buffers=20 ! video/x-raw,width=160,height=120,framerate=2/1 \
            ! vp8enc deadline=1 keyframe-max-dist=2 ! mux.
            """)
        let beeps = try pipeline.element(named: "beeps", as: AppSource.self)
        let format = AudioFormat(format: .s16, rate: 48_000, channels: 1)
        try beeps.configure(audio: format, isLive: false, doTimestamp: false, limits: .init(), whenFull: .block)
        let onsets = Set(events.map { Int($0.nanoseconds / 10_000_000) })   // in 10 ms blocks
        for block in 0..<1000 {
            var samples = [Int16](repeating: 0, count: 480)
            // A beep spans five blocks from its onset.
            if let onset = (0..<5).map({ block - $0 }).first(where: { onsets.contains($0) }) {
                for index in samples.indices {
                    let t = Double((block - onset) * 480 + index) / 48_000
                    samples[index] = Int16(0.5 * 32_767 * sin(2 * Double.pi * 1_000 * t))
                }
            }
            try beeps.push(samples, pts: .milliseconds(block * 10))
        }
        try beeps.endOfStream()
        let ended = try pipeline.bus.waitForMessage(timeout: .seconds(30), after: { () throws(GStreamerError) in try pipeline.setState(.playing) }) { message in
            switch message.view {
            case .endOfStream, .error: return true
            default: return false
            }
        }
        _ = try? pipeline.setState(.null)
        guard let ended, case .endOfStream = ended.view else { throw MeasurementError("writing the beep-and-flash lesson failed: \(ended?.description ?? "timed out")") }
    }
}
