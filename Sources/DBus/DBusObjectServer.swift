import CGIO
import Foundation
import Synchronization

/// One object exported on the session bus under a well-known name, with the interfaces of its
/// introspection XML answered by a `DBusObjectHandler`.
///
/// It has a private connection (closing it releases the name) and a GLib main loop on a thread
/// of its own, where method calls and property reads are dispatched.
public final class DBusObjectServer {
    /// The bus name owned (the first of the names asked for that was free).
    public let busName: String
    /// The object's path.
    public let path: String
    private let connection: OpaquePointer
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private let node: UnsafeMutablePointer<GDBusNodeInfo>
    private let registrations: [guint]
    private let loopEnded = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// The loop and its context, handed to the thread that runs them.
    private struct RunningLoop: @unchecked Sendable {
        // GLib lets a main loop run on any one thread; only that thread runs it.
        let loop: OpaquePointer
        let context: OpaquePointer
    }

    /// What a registration's user data points to: the handler, retained once per registration.
    private final class HandlerBox {
        let handler: any DBusObjectHandler
        init(_ handler: any DBusObjectHandler) { self.handler = handler }
    }

    /// Connects to the session bus, exports every interface of `introspection` at `path` and
    /// owns the first free name of `names`; wraps `g_dbus_connection_new_for_address_sync`,
    /// `g_dbus_connection_register_object` and the bus's `RequestName`.
    public init(introspection: String, path: String, names: [String], handler: any DBusObjectHandler) throws(DBusError) {
        self.path = path
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw .noBus(Self.take(&error))
        }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw .noBus("\(String(cString: address)): \(Self.take(&error))")
        }
        guard let node = g_dbus_node_info_new_for_xml(introspection, &error) else {
            g_object_unref(UnsafeMutableRawPointer(connection))
            throw .badInterface(Self.take(&error))
        }
        // Calls are dispatched to the context that is the thread default at registration.
        guard let context = g_main_context_new(), let loop = g_main_loop_new(context, 0) else {
            g_object_unref(UnsafeMutableRawPointer(connection))
            g_dbus_node_info_unref(node)
            throw .registrationFailed(path: path, reason: "GLib could not make a main loop")
        }
        g_main_context_push_thread_default(context)
        var vtable = Self.makeVTable()
        var ids: [guint] = []
        var failure: DBusError?
        var index = 0
        while let interfaces = node.pointee.interfaces, let interface = interfaces[index] {
            index += 1
            let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
            // The box is released by the destroy notify when the registration goes.
            let id = g_dbus_connection_register_object(connection, path, interface, &vtable, box, { box in if let box { Unmanaged<HandlerBox>.fromOpaque(box).release() } }, &error)
            if id == 0 {
                failure = .registrationFailed(path: path, reason: Self.take(&error))
                break
            }
            ids.append(id)
        }
        g_main_context_pop_thread_default(context)
        var owned: String?
        if failure == nil {
            do throws(DBusError) {
                owned = try Self.requestFirstName(names, on: connection)
            } catch {
                failure = error
            }
        }
        guard failure == nil, let owned, ids.count == index, index > 0 else {
            for id in ids { g_dbus_connection_unregister_object(connection, id) }
            g_dbus_connection_close_sync(connection, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
            g_dbus_node_info_unref(node)
            g_main_loop_unref(loop)
            g_main_context_unref(context)
            throw failure ?? .badInterface("the XML declares no interface")
        }
        self.connection = connection
        self.context = context
        self.node = node
        registrations = ids
        busName = owned
        self.loop = loop
        let running = RunningLoop(loop: loop, context: context)
        let thread = Thread { [loopEnded] in
            g_main_context_push_thread_default(running.context)
            g_main_loop_run(running.loop)
            g_main_context_pop_thread_default(running.context)
            loopEnded.signal()
        }
        thread.name = "dbus-\(owned)"
        thread.start()
    }

    /// Emits `interface.name(arguments)` from the object; wraps `g_dbus_connection_emit_signal`.
    /// Returns false when the bus did not take it (the connection is closed).
    @discardableResult
    public func emitSignal(interface: String, name: String, arguments: [DBusValue]) -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let sent = g_dbus_connection_emit_signal(connection, nil, path, interface, name, DBusValue.tuple(arguments).makeVariant(), &error) != 0
        if let error { g_error_free(error) }
        return sent
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged` for `interface`.
    public func propertiesChanged(interface: String, changed: [(String, DBusValue)]) {
        guard !changed.isEmpty else { return }
        emitSignal(interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged", arguments: [.string(interface), .dictionary(changed), .strings([])])
    }

    /// Unexports the object, releases the name (the connection closes) and ends the thread.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for id in registrations { g_dbus_connection_unregister_object(connection, id) }
        g_dbus_connection_close_sync(connection, nil, nil)
        g_main_loop_quit(loop)
        _ = loopEnded.wait(timeout: .now() + .seconds(5))
    }

    deinit {
        stop()
        g_object_unref(UnsafeMutableRawPointer(connection))
        g_main_loop_unref(loop)
        g_main_context_unref(context)
        g_dbus_node_info_unref(node)
    }

    // MARK: The C side

    /// Asks the bus for each name in turn (without queueing); returns the first one owned.
    private static func requestFirstName(_ names: [String], on connection: OpaquePointer) throws(DBusError) -> String {
        var refusals: [String] = []
        for name in names {
            var error: UnsafeMutablePointer<GError>?
            // DBUS_NAME_FLAG_DO_NOT_QUEUE (4): the answer is 1 (owned) or 3 (someone else has it).
            let arguments = DBusValue.tuple([.string(name), .uint32(4)]).makeVariant()
            let replyType = g_variant_type_new("(u)")
            defer { g_variant_type_free(replyType) }
            guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                           "RequestName", arguments, replyType, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error) else {
                throw .nameUnavailable(name: name, reason: take(&error))
            }
            defer { g_variant_unref(reply) }
            if case .tuple(let values) = DBusValue(reading: reply), values.first == .uint32(1) { return name }
            refusals.append("\(name) is owned by another process")
        }
        throw .nameUnavailable(name: names.first ?? "?", reason: refusals.joined(separator: "; "))
    }

    /// The error's message; frees it.
    private static func take(_ error: inout UnsafeMutablePointer<GError>?) -> String {
        guard let current = error else { return "unknown error" }
        defer { g_error_free(current); error = nil }
        return current.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }

    private static func handler(_ userData: gpointer?) -> (any DBusObjectHandler)? {
        userData.map { Unmanaged<HandlerBox>.fromOpaque($0).takeUnretainedValue().handler }
    }

    private static func makeVTable() -> GDBusInterfaceVTable {
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, interface, method, parameters, invocation, userData in
            guard let invocation else { return }
            guard let handler = DBusObjectServer.handler(userData), let interface, let method else {
                g_dbus_method_invocation_return_dbus_error(invocation, "org.freedesktop.DBus.Error.Failed", "the object is going away")
                return
            }
            var arguments: [DBusValue] = []
            if let parameters, case .tuple(let values) = DBusValue(reading: parameters) { arguments = values }
            switch handler.call(interface: String(cString: interface), method: String(cString: method), arguments: arguments) {
            case .values(let values):
                // transfer floating: the invocation sinks the reply and is consumed.
                g_dbus_method_invocation_return_value(invocation, values.isEmpty ? nil : DBusValue.tuple(values).makeVariant())
            case .error(let name, let message):
                g_dbus_method_invocation_return_dbus_error(invocation, name, message)
            }
        }
        vtable.get_property = { _, _, _, interface, name, error, userData in
            guard let handler = DBusObjectServer.handler(userData), let interface, let name,
                  let value = handler.property(interface: String(cString: interface), name: String(cString: name)) else {
                g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_UNKNOWN_PROPERTY.rawValue), "the property has no value now")
                return nil
            }
            return value.makeVariant()   // transfer floating: GDBus sinks it
        }
        vtable.set_property = { _, _, _, interface, name, value, error, userData in
            guard let handler = DBusObjectServer.handler(userData), let interface, let name, let value else { return 0 }
            if let refusal = handler.setProperty(interface: String(cString: interface), name: String(cString: name), value: DBusValue(reading: value)) {
                g_set_error_literal(error, g_dbus_error_quark(), Int32(G_DBUS_ERROR_INVALID_ARGS.rawValue), refusal)
                return 0
            }
            return 1
        }
        return vtable
    }
}

// GDBus connections are thread-safe; the main loop runs on the server's thread only and is
// only quit from others, which GLib allows.
extension DBusObjectServer: @unchecked Sendable {}
