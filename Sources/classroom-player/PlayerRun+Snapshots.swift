import Foundation

/// `--video snapshots:DIR`: a picture of the lesson every few seconds, each said as an event.
extension PlayerRun {
    /// Starts taking the lesson's pictures; each is a `snapshot` event, a failure a `snapshot-failed` one.
    func startSnapshots(_ snapshots: (directory: URL, interval: Double)) {
        guard let lesson = state.withLock({ $0.lesson }) else { return }
        let snapshotter = Snapshotter(lesson: lesson, directory: snapshots.directory, interval: snapshots.interval)
        state.withLock { $0.snapshotter = snapshotter }
        snapshotter.start(onSnapshot: { [events] path, position in events.emit("snapshot", [("path", .string(path)), ("position", .maybe(position?.seconds))]) },
                          onFailure: { [events] why in events.emit("snapshot-failed", [("message", .string(why))]) })
    }
}
