extension SessionController {
    /// Returns once the controller has applied every session change made before the call.
    ///
    /// Session events are applied on the controller's queue; a caller that changed the session
    /// directly (a lease, a release, an override) and wants to read the engine afterwards — is
    /// the microphone chain there now? — waits here first, as `connectMicrophone()` does.
    public func waitUntilApplied() {
        queue.sync {}
    }
}
