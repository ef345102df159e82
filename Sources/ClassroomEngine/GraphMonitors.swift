import ClassroomAudio
import Dispatch
import Foundation
import GStreamer

/// Watches the running graph for the alarms only it can see: an RTC feed that stopped (1025), a
/// microphone that captures too little (1031), an output the sound server plays silently (1032), and courseware made quieter at the output than the
/// session's gains explain (mediaSuppressed — the reference articles' main bug).
///
/// Levels are recorded on the bus thread; `check` runs on the controller queue and returns
/// only transitions (raise once, clear once).
final class GraphMonitors: Sendable {
    /// A raise or a clear to pass to the session.
    struct Finding: Sendable, Equatable {
        let code: AlarmCode
        let owner: String
        let raised: Bool
        let message: String
        let context: [String: String]
    }

    private struct Levels: Sendable {
        var latest: [String: Double] = [:]      // meter → loudest channel RMS (dBFS)
        var latestAt: [String: ClockTime] = [:] // meter → running time of that window
        var raised: Set<String> = []            // "code/owner"
        var lowMicSince: UInt64?
        var suppressedSince: UInt64?
        var silentAtServerSince: UInt64?
        var expectedCoursewareGain = 1.0
    }

    private let settings: SessionController.AlarmSettings
    private let levels = Locked(Levels())

    init(settings: SessionController.AlarmSettings) { self.settings = settings }

    /// The gain the courseware should have at the output: master volume × ducking.
    var expectedCoursewareGain: Double {
        get { levels.withLock { $0.expectedCoursewareGain } }
        set { levels.withLock { $0.expectedCoursewareGain = newValue } }
    }

    /// Records a level window from `meter`, which ended at `runningTime`.
    func record(meter: String, rms: [Double], runningTime: ClockTime? = nil) {
        guard let loudest = rms.max() else { return }
        levels.withLock { state in
            state.latest[meter] = loudest
            state.latestAt[meter] = runningTime
        }
    }

    /// How far apart in running time two meters' latest windows may be and still be compared:
    /// while the output is held up (a new PulseAudio stream stalls about a second), the output
    /// meter's latest window is old silence and the courseware's is new audio.
    static let comparableWithin = ClockTime.milliseconds(250)

    /// The latest level of `meter`.
    func level(_ meter: String) -> Double? { levels.withLock { $0.latest[meter] } }

    /// Whether two windows are close enough in running time to compare (unknown times are).
    static func comparable(_ a: ClockTime?, _ b: ClockTime?) -> Bool {
        guard let a, let b else { return true }
        return (a > b ? a - b : b - a) <= comparableWithin
    }

    /// Looks at everything once; returns the alarms to raise or clear now. `served` is the level the
    /// sound server really plays on the output's device (`OutputWitness`), nil when unknown.
    func check(inputs: [AudioInput], uplinkActive: Bool, served: (device: String, level: Double)? = nil,
               now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> [Finding] {
        levels.withLock { state in
            var findings: [Finding] = []
            func transition(_ code: AlarmCode, _ owner: String, _ active: Bool, _ message: @autoclosure () -> String, _ context: [String: String] = [:]) {
                let key = "\(code)/\(owner)"
                if active, !state.raised.contains(key) {
                    state.raised.insert(key)
                    findings.append(Finding(code: code, owner: owner, raised: true, message: message(), context: context))
                } else if !active, state.raised.contains(key) {
                    state.raised.remove(key)
                    findings.append(Finding(code: code, owner: owner, raised: false, message: "", context: [:]))
                }
            }

            // 1025: an RTC feed that was live and whose pushes stopped (digital silence still arrives; a held-up output is not the feed's fault).
            let rtc = inputs.filter { $0.kind == .rtc }
            for input in rtc {
                let silence = input.arrivals.silence(now: now)
                let interrupted = silence.map { $0 > settings.rtcSilence } ?? false
                transition(.rtcAudioInterrupted, input.id, interrupted,
                           "RTC audio from '\(input.id)' stopped arriving: nothing was pushed for \(silence?.milliseconds ?? 0) ms",
                           ["silence_ms": "\(silence?.milliseconds ?? 0)"])
            }
            for key in state.raised where key.hasPrefix("\(AlarmCode.rtcAudioInterrupted)/") {
                let owner = String(key.dropFirst("\(AlarmCode.rtcAudioInterrupted)/".count))
                if !rtc.contains(where: { $0.id == owner }) { transition(.rtcAudioInterrupted, owner, false, "") }
            }

            // 1031: what the connected microphone captures stays below the floor (before the DSP,
            // whose output is near silence whenever it cancels the teacher's echo).
            // A chain that delivers nothing at all has no level: that is silence too, not an unknown.
            let captured = state.latest[EngineGraph.micCaptureLevel]
            if uplinkActive, (captured ?? -.infinity) < settings.lowRecordingLevel {
                state.lowMicSince = state.lowMicSince ?? now
            } else {
                state.lowMicSince = nil
            }
            let lowFor = state.lowMicSince.map { ClockTime(nanoseconds: now - $0) }
            transition(.recordingLevelTooLow, "microphone", lowFor.map { $0 >= settings.lowRecordingDuration } ?? false,
                       captured == nil ? "the microphone delivered no audio at all for \(lowFor?.seconds ?? 0) s"
                                       : "the microphone stayed below \(Int(settings.lowRecordingLevel)) dBFS for \(lowFor?.seconds ?? 0) s",
                       ["level_db": "\(captured ?? -.infinity)"])
            if !uplinkActive { state.latest[EngineGraph.micCaptureLevel] = nil }

            // 1032: the engine plays and the server plays silence on the device (muted, volume 0);
            // raised after `silentOutputDuration`, held until the server plays sound again.
            let playing = state.latest[EngineGraph.outputLevel].map { $0 > settings.audibleOutput } ?? false
            let silentAtServer = served.map { $0.level <= settings.silentAtServer } ?? false
            if silentAtServer, playing { state.silentAtServerSince = state.silentAtServerSince ?? now }
            if !silentAtServer { state.silentAtServerSince = nil }
            let silentFor = state.silentAtServerSince.map { ClockTime(nanoseconds: now - $0) }
            let held = state.raised.contains("\(AlarmCode.playoutLevelTooLow)/output") && silentAtServer
            transition(.playoutLevelTooLow, "output", held || silentFor.map { $0 >= settings.silentOutputDuration } ?? false,
                       "the sound server plays the output silently on '\(served?.device ?? "?")' while the engine plays at "
                       + "\(Int(state.latest[EngineGraph.outputLevel] ?? -.infinity)) dBFS: is the device muted or at volume 0 (pactl set-sink-mute / set-sink-volume)?",
                       ["device": served?.device ?? "", "served_db": "\(served?.level ?? -.infinity)", "output_db": "\(state.latest[EngineGraph.outputLevel] ?? -.infinity)"])

            // mediaSuppressed: output quieter than courseware × expected gain.
            var suppressed = false
            var context: [String: String] = [:]
            if let courseware = inputs.first(where: { $0.kind == .courseware }),
               let input = state.latest[EngineGraph.Input.level(courseware.id)], input > settings.suppressionFloor,
               let output = state.latest[EngineGraph.outputLevel],
               Self.comparable(state.latestAt[EngineGraph.Input.level(courseware.id)], state.latestAt[EngineGraph.outputLevel]) {
                let expected = input + 20 * log10(max(state.expectedCoursewareGain * courseware.volume, 1e-6))
                suppressed = output < expected - settings.suppressionMargin
                context = ["courseware_db": "\(input)", "output_db": "\(output)", "expected_db": "\(expected)"]
            }
            if suppressed { state.suppressedSince = state.suppressedSince ?? now } else { state.suppressedSince = nil }
            let suppressedFor = state.suppressedSince.map { ClockTime(nanoseconds: now - $0) }
            transition(.mediaSuppressed, "courseware", suppressedFor.map { $0 >= settings.suppressionDuration } ?? false,
                       "the courseware is quieter at the output than the volume and ducking explain", context)
            return findings
        }
    }
}
