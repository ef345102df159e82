/// The kinds of alarm (DESIGN §4, "Alarms"), with the numbers the reference SDK uses.
public enum AlarmCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// RTC is live but its audio is not reaching the output.
    case rtcAudioInterrupted
    /// The policy corrected a configuration request.
    case sessionCorrected
    /// The recorded level stayed too low.
    case recordingLevelTooLow
    /// The played level stayed too low.
    case playoutLevelTooLow
    /// The recording device is held by someone else.
    case recordingDeviceBusy
    /// The courseware level at the output fell without a duck.
    case mediaSuppressed
    /// The conferencing room refused this kiosk as configured (a token, a pin, a room, a certificate):
    /// the class goes on without it until someone changes the setting.
    case roomRefused

    /// The reference SDK's warning number, where it has one.
    public var number: Int? {
        switch self {
        case .rtcAudioInterrupted: 1025
        case .sessionCorrected: 1029
        case .recordingLevelTooLow: 1031
        case .playoutLevelTooLow: 1032
        case .recordingDeviceBusy: 1033
        case .mediaSuppressed, .roomRefused: nil
        }
    }

    /// "1029 sessionCorrected", or the name alone.
    public var description: String {
        number.map { "\($0) \(rawValue)" } ?? rawValue
    }
}
