import ClassroomEngine
import Foundation
import GStreamer
import Synchronization

/// `--video snapshots:DIR`: every interval, the frame the lesson shows as a PNG, through the
/// lesson player's own `snapshot(to:)` (the frame its video sink presented last), so pauses and
/// seeks are followed by construction. A paused lesson gives no new pictures.
final class Snapshotter: Sendable {
    /// The folder the pictures go to.
    let directory: URL
    private let lesson: LessonPlayer
    private let interval: Double
    private let queue = DispatchQueue(label: "classroom-player.snapshots")
    private let state = Mutex(State())

    private struct State {
        var timer: DispatchSourceToken?
        var lastPosition: ClockTime?
        var count = 0
    }

    init(lesson: LessonPlayer, directory: URL, interval: Double) {
        self.lesson = lesson
        self.directory = directory
        self.interval = interval
    }

    /// Takes a picture every interval; `onSnapshot` gets the file and position, `onFailure` the
    /// reason when pictures cannot be taken (then they stop).
    func start(onSnapshot: @escaping @Sendable (String, ClockTime?) -> Void, onFailure: @escaping @Sendable (String) -> Void) {
        let timer = DispatchSourceToken.repeating(every: .milliseconds(Int(interval * 1000)), on: queue) { [weak self] in
            guard let self, let position = self.lesson.position, self.state.withLock({ $0.lastPosition }) != position else { return }
            let number = self.state.withLock { $0.count + 1 }
            let file = self.directory.appendingPathComponent(String(format: "snapshot-%04d.png", number)).path
            do throws(EngineError) {
                let shown = try self.lesson.snapshot(to: file)
                self.state.withLock { $0.count = number; $0.lastPosition = position }
                onSnapshot(file, shown)
            } catch {
                onFailure(error.description)
                self.state.withLock { $0.timer?.cancel(); $0.timer = nil }
            }
        }
        state.withLock { $0.timer = timer }
    }

    /// Stops taking pictures.
    func stop() {
        state.withLock { $0.timer?.cancel(); $0.timer = nil }
        queue.sync {}
    }

    /// Pictures written so far.
    var count: Int { state.withLock { $0.count } }
}
