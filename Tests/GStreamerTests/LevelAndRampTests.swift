import Foundation
import Synchronization
import Testing
@testable import GStreamer

@Suite("Levels and volume ramps")
struct LevelAndRampTests {
    init() throws { try Support.start() }

    @Test("a −20 dBFS sine reads −20 dB peak and −23 dB RMS from level messages")
    func sineLevel() throws {
        // volume=0.1 is a peak of −20 dBFS; a sine's RMS is 3.01 dB below its peak.
        let pipeline = try Pipeline.parse("""
            audiotestsrc wave=sine freq=1000 volume=0.1 num-buffers=50 samplesperbuffer=960 \
            ! audio/x-raw,format=S16LE,rate=48000,channels=1 ! level name=meter interval=100000000 ! fakesink sync=false
            """)
        let messages = try Support.runToEnd(pipeline)
        let levels = messages.compactMap { message -> (rms: Double, peak: Double)? in
            // At EOS level also reports the empty remainder; only whole 100 ms windows count.
            guard case .element(let s) = message.view, s.name == "level", s.clockTime("duration") == .milliseconds(100),
                  let rms = s.doubles("rms")?.first, let peak = s.doubles("peak")?.first else { return nil }
            return (rms, peak)
        }
        #expect(levels.count == 10)
        for level in levels {
            #expect(abs(level.peak - -20.0) < 0.1)
            #expect(abs(level.rms - -23.01) < 0.1)
        }
    }

    @Test("a ramp on a running volume element lowers the measured level smoothly, with no step")
    func rampOnRunningVolume() throws {
        let pipeline = try Pipeline.parse("""
            audiotestsrc is-live=true wave=sine freq=500 volume=0.5 samplesperbuffer=480 \
            ! audio/x-raw,format=F32LE,rate=48000,channels=1 ! volume name=duck ! level name=meter interval=10000000 ! fakesink sync=true
            """)
        pipeline.useClock(try Clock.system())
        let duck = try #require(pipeline.element(named: "duck"))
        let levels = Mutex<[(time: ClockTime, rms: Double)]>([])
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let subscription = pipeline.bus.subscribe { message in
            guard case .element(let s) = message.view, s.name == "level",
                  let rms = s.doubles("rms")?.first, let time = s.clockTime("running-time") else { return }
            let count = levels.withLock { list -> Int in list.append((time, rms)); return list.count }
            if count == 20 { started.signal() }
            if count == 80 { finished.signal() }
        }
        defer { subscription.cancel() }
        try pipeline.setState(.playing)
        #expect(started.wait(timeout: .now() + 5) == .success)

        let control = try InterpolationControlSource(mode: .linear)
        try duck.bindAbsolute("volume", to: control)
        let now = try #require(duck.position())
        control.set(at: now, value: 1.0)
        control.set(at: now + .milliseconds(300), value: 0.1)

        #expect(finished.wait(timeout: .now() + 5) == .success)
        try pipeline.setState(.null)

        let series = levels.withLock { $0 }
        let before = series.filter { $0.time + .milliseconds(10) < now }.map(\.rms)
        let after = series.filter { $0.time > now + .milliseconds(320) }.map(\.rms)
        let during = series.filter { $0.time >= now && $0.time <= now + .milliseconds(300) }.map(\.rms)
        let unducked = try #require(before.last)
        let ducked = try #require(after.last)
        // 500 Hz fits a 10 ms window exactly, so every window's RMS is the same until the ramp.
        #expect(abs(unducked - -9.03) < 0.05)                 // 0.5 peak sine
        #expect(abs((ducked - unducked) - -20.0) < 0.3)       // ×0.1 = −20 dB
        #expect(during.count >= 20)                           // the change took ~300 ms, not one buffer
        // Smooth: in linear gain, each 10 ms window moves by at most ~1/30 of the full swing (plus slack).
        let gains = (before.suffix(1) + during + after.prefix(1)).map { pow(10, ($0 - unducked) / 20) }
        let steps = zip(gains, gains.dropFirst()).map { $0 - $1 }
        #expect(steps.allSatisfy { $0 > -0.01 })              // never goes back up
        #expect(steps.max() ?? 1 < 0.06)                      // no step
    }
}
