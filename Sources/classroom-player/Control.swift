import ArgumentParser
import Foundation

/// `classroom-player control [LINE …]`: sends control lines to a running player's `--control`
/// socket (the service's by default) and prints its answers, so a kiosk needs no other client.
struct Control: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send control lines to a running player and print its answers.",
        discussion: """
            Each LINE is one JSON object, e.g. '{"do":"status"}' or '{"do":"mic","on":true}' \
            ('classroom-player help play' lists the verbs); without any, the lines come from standard input. \
            Each answer is printed as the one JSON line the player sends.

            Exit status: 0 every answer is ok; 1 no player answers at the socket; 2 a line was refused \
            (its answer says why).
            """
    )

    @Option(name: .long, help: ArgumentHelp("The player's control socket (its --control PATH).", valueName: "path"))
    var socket: String = Control.serviceSocket

    @Argument(help: ArgumentHelp("Control lines: JSON objects.", valueName: "line"))
    var lines: [String] = []

    /// Where the service's player listens (its unit gives --control %t/classroom-player.sock).
    static var serviceSocket: String {
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/user/\(getuid())"
        return "\(runtime)/classroom-player.sock"
    }

    /// How long an answer may take: a load opens a lesson first.
    static let answerTimeout: Int32 = 30_000

    func run() throws {
        let requests = lines.isEmpty ? Array(AnyIterator { readLine() }) : lines
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure("cannot make a socket: \(String(cString: strerror(errno)))", status: .cannotStart) }
        defer { close(descriptor) }
        guard let address = UnixSocketAddress(path: socket) else {
            throw Self.failure("the socket path \(socket) is longer than the \(UnixSocketAddress.longestPath) bytes a Unix socket path may have; give a shorter one with --socket", status: .cannotStart)
        }
        guard address.connect(descriptor) == 0 else {
            throw Self.failure("no player answers at \(socket) (\(String(cString: strerror(errno)))): is it running with --control \(socket)? "
                               + "The service listens at $XDG_RUNTIME_DIR/classroom-player.sock; give another with --socket PATH", status: .cannotStart)
        }
        // All lines, then the end: the player answers each and closes.
        let text = requests.map { $0 + "\n" }.joined()
        guard SocketListener.send(descriptor, text) else { throw Self.failure("the player at \(socket) closed the connection", status: .cannotStart) }
        shutdown(descriptor, Int32(SHUT_WR))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Self.answerTimeout) > 0 else {
                throw Self.failure("the player at \(socket) did not answer within \(Self.answerTimeout / 1000) s", status: .cannotStart)
            }
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        let answers = String(decoding: received, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        for answer in answers { print(answer) }
        let refused = answers.contains { !$0.contains(#""ok":true"#) }
        if refused || answers.count < requests.count { throw ExitCode(ExitStatus.playbackFailed.rawValue) }
    }

    private static func failure(_ message: String, status: ExitStatus) -> ExitCode {
        FileHandle.standardError.write(Data("classroom-player: \(message)\n".utf8))
        return ExitCode(status.rawValue)
    }
}
