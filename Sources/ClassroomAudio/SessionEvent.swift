/// Everything the session announces, delivered in order to every observer.
public enum SessionEvent: Sendable, Hashable {
    /// The effective configuration changed.
    case configurationChanged(old: AudioConfiguration, new: AudioConfiguration, reason: ConfigurationChangeReason)
    /// The policy corrected a direct request (followed by a 1029 ``alarm(_:)``).
    case correctedByPolicy(PolicyCorrection)
    /// The route changed.
    case routeChanged(reason: RouteChangeReason, previous: AudioRoute, current: AudioRoute)
    /// The device the user named for a direction went away: the choice is over, and the route's
    /// own choice applies (the route change follows).
    case deviceChoiceEnded(deviceID: String, direction: AudioDevice.Direction)
    /// The session became active or inactive.
    case activationChanged(isActive: Bool)
    /// An interruption began; the session is inactive, the lesson paused and the uplink muted.
    case interruptionBegan(InterruptionSource)
    /// The last interruption ended; with `shouldResume` the session is active again.
    case interruptionEnded(InterruptionSource, shouldResume: Bool)
    /// The lesson player should pause.
    case lessonPauseRequested(LessonPauseReason)
    /// The active volume channel or its value changed.
    case volumeChanged(ActiveVolume)
    /// Ducking was applied or removed.
    case duckingChanged(DuckingState)
    /// An alarm was raised (or, for one-shot alarms such as 1029, reported).
    case alarm(Alarm)
    /// A raised alarm was cleared.
    case alarmCleared(Alarm)
    /// The sound server died; everything the engine built on it is gone.
    case mediaServicesWereLost
    /// The sound server is back; the engine rebuilds from the resolved state.
    case mediaServicesWereReset
}
