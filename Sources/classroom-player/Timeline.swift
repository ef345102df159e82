import Foundation

/// An unattended run's script (`--script`): a JSON array of steps `{"at": SECONDS, "do": VERB, …}`,
/// `at` counting seconds since play started (not the lesson position).
struct Timeline: Sendable, Equatable {
    /// One step.
    struct Step: Sendable, Equatable {
        /// Seconds after play started.
        let at: Double
        /// What to do.
        let command: Command
        /// Its place in the file (1-based), for messages and events.
        let number: Int
    }

    /// The steps in the order they run: by `at`, then by their place in the file.
    let steps: [Step]

    /// The largest timeline file read.
    static let maximumSize = 1 << 20
    /// The latest a step may run: a week after play started (later would overflow the timers).
    static let latestStep = 7 * 24 * 3600.0

    /// Reads and checks a timeline file; every step is validated before anything plays.
    static func load(path: String) throws(PlayerError) -> Timeline {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadableInput(role: "timeline", path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadableInput(role: "timeline", path: path, reason: "it is a directory") }
        // Foundation reads a FIFO or a device as "you don't have permission", even as root: say what it is.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw .unreadableInput(role: "timeline", path: path, reason: "it is a \(info.st_mode & S_IFMT == S_IFIFO ? "FIFO (named pipe)" : "device or special file"), not a file; a timeline is read whole from a regular file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadableInput(role: "timeline", path: path, reason: PlayerError.reason(error))
        }
        guard data.count <= Timeline.maximumSize else {
            throw .badTimeline(path: path, reason: "it is \(data.count) bytes; a timeline is at most \(Timeline.maximumSize / 1024) KiB")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw .badTimeline(path: path, reason: "it is not UTF-8 text")
        }
        do {
            return try parse(text)
        } catch {
            throw .badTimeline(path: path, reason: error.message)
        }
    }

    /// Parses timeline text.
    static func parse(_ text: String) throws(CommandError) -> Timeline {
        let shape = "a timeline is one JSON array of steps, like [{\"at\": 2, \"do\": \"mic\", \"on\": true}]"
        let root = try JSON.parse(text, hint: shape)
        guard case .array(let items) = root else { throw CommandError(.badRequest, "\(shape), not \(root.typeName)") }
        var steps: [Step] = []
        for (index, item) in items.enumerated() {
            let number = index + 1
            do throws(CommandError) {
                guard case .object = item else {
                    throw CommandError(.badRequest, "a step is a JSON object, not \(item.typeName)")
                }
                guard let atValue = item["at"] else {
                    throw CommandError(.missingField, "every step needs \"at\": seconds since play started")
                }
                guard case .number(let at) = atValue, at.isFinite, (0...Timeline.latestStep).contains(at) else {
                    throw CommandError(.badValue, "\"at\" is seconds since play started, from 0 to \(Int(Timeline.latestStep)) (a week), not \(atValue.serialized)")
                }
                steps.append(Step(at: at, command: try Command.parse(item, extra: ["at"], inTimeline: true), number: number))
            } catch {
                throw CommandError(error.code, "step \(number): \(error.message)")
            }
        }
        // Stable: steps at the same second run in file order.
        return Timeline(steps: steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element))
    }
}
