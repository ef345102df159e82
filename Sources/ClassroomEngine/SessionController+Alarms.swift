import ClassroomAudio
import Dispatch
import GStreamer

/// The controller's alarm watch: the thresholds, the timer, and each check (which also ends a
/// server cork and drives output recovery).
extension SessionController {
    /// Thresholds of the graph alarms.
    public struct AlarmSettings: Sendable {
        /// 1025: an RTC input that received audio and then none for this long.
        public var rtcSilence: ClockTime = .milliseconds(500)
        /// 1031: what the microphone captures (before the DSP) below this level …
        public var lowRecordingLevel: Double = -60
        /// … for this long.
        public var lowRecordingDuration: ClockTime = .seconds(5)
        /// mediaSuppressed: the courseware quieter at the output than its gains explain by this much …
        public var suppressionMargin: Double = 3
        /// … for this long, while the courseware itself is above `suppressionFloor`.
        public var suppressionDuration: ClockTime = .seconds(1)
        /// Courseware quieter than this is not judged.
        public var suppressionFloor: Double = -50
        /// How often the monitors look.
        public var checkInterval: ClockTime = .milliseconds(100)
        /// 1032: the engine's output above this level (dBFS) …
        public var audibleOutput: Double = -50
        /// … while the sound server plays the device's monitor at or below this level …
        public var silentAtServer: Double = -80
        /// … for this long.
        public var silentOutputDuration: ClockTime = .seconds(2)
        /// Defaults.
        public init() {}
    }

    func startMonitorTimer() {
        let timer = DispatchSourceToken.repeating(every: .milliseconds(Int(alarms.checkInterval.milliseconds)), on: queue) { [weak self] in
            self?.checkAlarms()
        }
        state.withLock { $0.timer = timer }
    }

    func checkAlarms() {
        if engine.link.isLost {
            tryRecovery()
            return
        }
        if engine.link.isCorked, engine.isOutputMutedByServer == false { endServerCork() }
        retryMicrophoneIfDue()
        // The device's monitor, checked about once a second (asking pulsesink for its device is a server round trip).
        let checks = state.withLock { state -> Int in state.alarmChecks += 1; return state.alarmChecks }
        if checks % 10 == 1 { witness.follow(device: engine.currentOutputDevice) }
        // An interrupted stream (corked by the server included) is silent at the server on purpose.
        let served = session.state.interruption.isInterrupted ? nil
            : witness.device.flatMap { device in witness.level().map { (device, $0) } }
        let findings = monitors.check(inputs: engine.inputs, uplinkActive: engine.uplink != nil, served: served)
        for finding in findings {
            if finding.raised {
                session.raiseAlarm(finding.code, owner: finding.owner, message: finding.message, context: finding.context)
            } else {
                session.clearAlarm(finding.code, owner: finding.owner)
            }
        }
    }
}
