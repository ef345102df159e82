@testable import DBus
import Foundation
import Synchronization
import Testing

/// A handler with one method, one read-only and one writable property, recording what it was asked.
private final class EchoHandler: DBusObjectHandler {
    let calls = Mutex<[(String, [DBusValue])]>([])
    let level = Mutex(0.25)

    func call(interface: String, method: String, arguments: [DBusValue]) -> DBusReply {
        calls.withLock { $0.append((method, arguments)) }
        switch method {
        case "Echo": return .values(arguments)
        case "Refuse": return .error(name: "org.example.Test.Error.Refused", message: "refused on purpose")
        default: return .done
        }
    }

    func property(interface: String, name: String) -> DBusValue? {
        switch name {
        case "Title": return .string("a lesson")
        case "Level": return .double(level.withLock { $0 })
        case "Tags": return .dictionary([("xesam:title", .string("a lesson")), ("mpris:length", .int64(12_000_000))])
        default: return nil
        }
    }

    func setProperty(interface: String, name: String, value: DBusValue) -> String? {
        guard name == "Level", case .double(let new) = value else { return "\(name) cannot be set" }
        level.withLock { $0 = new }
        return nil
    }
}

@Suite("DBus: an object exported on a private session bus, called by gdbus", .serialized)
struct DBusObjectServerTests {
    static let introspection = """
    <node><interface name="org.example.Test">
      <method name="Echo"><arg direction="in" name="text" type="s"/><arg direction="in" name="at" type="x"/>
        <arg direction="out" name="text" type="s"/><arg direction="out" name="at" type="x"/></method>
      <method name="Refuse"/>
      <signal name="Ping"><arg name="count" type="x"/></signal>
      <property name="Title" type="s" access="read"/>
      <property name="Level" type="d" access="readwrite"/>
      <property name="Tags" type="a{sv}" access="read"/>
    </interface></node>
    """

    @Test("Methods, errors, properties (read, written, a{sv}) and the name, as a real client sees them; values round-trip through GVariant")
    func exportedObject() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dbus-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let address = "unix:path=\(folder.path)/bus"
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--address=\(address)"]
        try daemon.run()
        // SIGKILL: a child of a Dispatch worker thread inherits its blocked SIGTERM.
        defer { kill(daemon.processIdentifier, SIGKILL); daemon.waitUntilExit() }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "\(folder.path)/bus"), Date() < deadline { usleep(20_000) }
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
        defer { unsetenv("DBUS_SESSION_BUS_ADDRESS") }

        let handler = EchoHandler()
        let server = try DBusObjectServer(introspection: Self.introspection, path: "/org/example/Test", names: ["org.example.Test"], handler: handler)
        #expect(server.busName == "org.example.Test")
        // A second server asking for the same name alone is refused, naming it.
        #expect(throws: DBusError.self) {
            _ = try DBusObjectServer(introspection: Self.introspection, path: "/org/example/Test", names: ["org.example.Test"], handler: handler)
        }

        let echo = try Self.gdbus(address, ["call", "--dest", "org.example.Test", "--object-path", "/org/example/Test", "--method", "org.example.Test.Echo", "héllo", "42"])
        #expect(echo == "('héllo', int64 42)", "gdbus call Echo answered \(echo)")
        #expect(handler.calls.withLock { $0.first?.1 } == [.string("héllo"), .int64(42)])
        let refused = try Self.gdbus(address, ["call", "--dest", "org.example.Test", "--object-path", "/org/example/Test", "--method", "org.example.Test.Refuse"])
        #expect(refused.contains("org.example.Test.Error.Refused") && refused.contains("refused on purpose"), "\(refused)")
        let title = try Self.gdbus(address, ["call", "--dest", "org.example.Test", "--object-path", "/org/example/Test", "--method", "org.freedesktop.DBus.Properties.Get", "org.example.Test", "Title"])
        #expect(title == "(<'a lesson'>,)", "\(title)")
        _ = try Self.gdbus(address, ["call", "--dest", "org.example.Test", "--object-path", "/org/example/Test", "--method", "org.freedesktop.DBus.Properties.Set", "org.example.Test", "Level", "<0.75>"])
        #expect(handler.level.withLock { $0 } == 0.75)
        let tags = try Self.gdbus(address, ["call", "--dest", "org.example.Test", "--object-path", "/org/example/Test", "--method", "org.freedesktop.DBus.Properties.Get", "org.example.Test", "Tags"])
        #expect(tags.contains("'xesam:title': <'a lesson'>") && tags.contains("'mpris:length': <int64 12000000>"), "\(tags)")
        #expect(server.emitSignal(interface: "org.example.Test", name: "Ping", arguments: [.int64(1)]))

        server.stop()
        let names = try Self.gdbus(address, ["call", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.ListNames"])
        #expect(!names.contains("org.example.Test"), "the name should be released on stop: \(names)")
    }

    @Test("Every value converts to GVariant and back unchanged")
    func roundTrip() {
        let values: [DBusValue] = [.boolean(true), .int32(-7), .uint32(7), .int64(-12_000_000), .double(0.5), .string("ünïcode"), .objectPath("/a/b"),
                                   .strings(["file", "http"]), .strings([]), .dictionary([("k", .string("v")), ("n", .int64(3))]), .dictionary([]),
                                   .variant(.double(1)), .tuple([.string("x"), .int64(1)])]
        for value in values {
            let variant = value.makeVariant()
            #expect(DBusValue(reading: variant) == value, "\(value)")
        }
    }

    /// Runs `gdbus ARGUMENTS… --address ADDRESS`; its trimmed output and error text.
    static func gdbus(_ address: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = [arguments[0], "--address", address] + arguments.dropFirst()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
