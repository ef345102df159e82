/// What one mutation of the session announces besides the differences in the resolved state.
struct SessionMutation {
    /// Why the configuration may change; set by every mutation that touches the base or the leases.
    var configurationReason: ConfigurationChangeReason?
    /// Why the route may change; nil lets a configuration change explain it.
    var routeReason: RouteChangeReason?
    /// Whether this mutation is a route change that ends the output override.
    var endsOverride = false
    /// Events announced before the resolved-state differences (corrections, interruptions).
    var leading: [SessionEvent] = []
    /// Events announced after the resolved-state differences (lesson pause requests).
    var trailing: [SessionEvent] = []

    /// The events for a transition between two resolved states, in delivery order.
    func events(from before: ResolvedState, to after: ResolvedState) -> [SessionEvent] {
        var events = leading
        let configurationChanged = before.configuration != after.configuration
        if configurationChanged, let configurationReason {
            events.append(
                .configurationChanged(old: before.configuration, new: after.configuration, reason: configurationReason))
        }
        let newlyLacksInput = after.lacksRequiredInput && (!before.lacksRequiredInput || before.route != after.route)
        if before.route != after.route || newlyLacksInput {
            let reason: RouteChangeReason =
                newlyLacksInput
                ? .noSuitableRouteForCategory
                : routeReason ?? (configurationChanged ? .categoryChange : .routeConfigurationChange)
            events.append(.routeChanged(reason: reason, previous: before.route, current: after.route))
        }
        if before.isActive != after.isActive {
            events.append(.activationChanged(isActive: after.isActive))
        }
        if before.volume != after.volume {
            events.append(.volumeChanged(after.volume))
        }
        if before.ducking.factor != after.ducking.factor {
            events.append(.duckingChanged(after.ducking))
        }
        for alarm in after.alarms where !before.alarms.contains(alarm) {
            events.append(.alarm(alarm))
        }
        for alarm in before.alarms
        where !after.alarms.contains(where: { $0.code == alarm.code && $0.owner == alarm.owner }) {
            events.append(.alarmCleared(alarm))
        }
        return events + trailing
    }
}
