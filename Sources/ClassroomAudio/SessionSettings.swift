/// The fixed choices a kiosk integrator makes for one session.
public struct SessionSettings: Sendable, Hashable {
    /// The app's own configuration, used when no lease needs anything else.
    public var baseConfiguration: AudioConfiguration = .initial
    /// The media volume at start, 0…1.
    public var mediaVolume: Float = 1
    /// The call volume at start, from ``callVolumeFloor`` to 1.
    public var callVolume: Float = 1
    /// The lowest call volume: above 0, so a call can never be made silent by the volume keys.
    public var callVolumeFloor: Float = 0.1
    /// The gain applied to ducked inputs: 0.1 is −20 dB, as in the reference SDK.
    public var duckingFactor: Float = 0.1
    /// How long ducking takes to apply.
    public var duckRamp: Duration = .milliseconds(250)
    /// How long ducking takes to lift.
    public var unduckRamp: Duration = .milliseconds(500)
    /// Whether unplugging the headphones the lesson plays through asks the lesson to pause.
    public var pausesLessonWhenHeadphonesUnplugged = true
    /// How devices are mapped to ports.
    public var classifier: PortClassifier = .standard

    /// The standard settings.
    public init() {}

    /// Checks every value.
    ///
    /// - Throws: ``AudioSessionError/badParam(reason:)`` naming the setting that is out of range.
    public func validate() throws(AudioSessionError) {
        guard callVolumeFloor.isFinite, callVolumeFloor > 0, callVolumeFloor <= 1 else {
            throw .badParam(reason: "call volume floor \(callVolumeFloor) must be above 0 and at most 1")
        }
        guard mediaVolume.isFinite, (0...1).contains(mediaVolume) else {
            throw .badParam(reason: "initial media volume \(mediaVolume) must be within 0…1")
        }
        guard callVolume.isFinite, (callVolumeFloor...1).contains(callVolume) else {
            throw .badParam(reason: "initial call volume \(callVolume) must be within \(callVolumeFloor)…1")
        }
        guard duckingFactor.isFinite, duckingFactor > 0, duckingFactor <= 1 else {
            throw .badParam(reason: "ducking factor \(duckingFactor) must be above 0 and at most 1")
        }
        guard duckRamp >= .zero, unduckRamp >= .zero else {
            throw .badParam(reason: "ducking ramps \(duckRamp) and \(unduckRamp) must not be negative")
        }
    }
}
