import CGStreamer

/// Lists and watches devices (`GstDeviceMonitor`): added, removed and changed devices arrive as
/// `deviceAdded`/`deviceRemoved`/`deviceChanged` messages on `bus`.
///
/// Use one monitor per process: device providers are process-wide singletons, and a second
/// monitor starting and stopping beside the first was measured to cut the first one off from
/// hotplug messages (PulseAudio provider, GStreamer 1.22).
public final class DeviceMonitor: Object {
    override class var gType: GType? { gst_device_monitor_get_type() }

    var gstMonitor: UnsafeMutablePointer<GstDeviceMonitor> { pointer(as: GstDeviceMonitor.self) }

    /// A monitor with no filters yet (wraps `gst_device_monitor_new`).
    public convenience init() throws(GStreamerError) {
        try GStreamer.initialize()
        self.init(adopting: UnsafeMutableRawPointer(gst_device_monitor_new()).assumingMemoryBound(to: GstObject.self))
    }

    /// Watches devices of `classes` (e.g. "Audio/Sink", "Audio/Source") with formats matching `caps` (wraps `gst_device_monitor_add_filter`).
    @discardableResult
    public func addFilter(classes: String, caps: Caps? = nil) -> UInt32 {
        gst_device_monitor_add_filter(gstMonitor, classes, caps?.gstCaps)
    }

    /// Watches audio outputs and inputs with raw audio caps.
    public static func audio() throws(GStreamerError) -> DeviceMonitor {
        let monitor = try DeviceMonitor()
        let raw = try Caps("audio/x-raw")
        monitor.addFilter(classes: "Audio/Sink", caps: raw)
        monitor.addFilter(classes: "Audio/Source", caps: raw)
        return monitor
    }

    /// Starts watching (wraps `gst_device_monitor_start`). Devices present at start are also
    /// posted as `deviceAdded`: de-duplicate against `devices`.
    public func start() throws(GStreamerError) {
        guard gst_device_monitor_start(gstMonitor) != 0 else {
            throw .deviceMonitorFailed("no device provider could start")
        }
    }

    /// Stops watching (wraps `gst_device_monitor_stop`).
    public func stop() { gst_device_monitor_stop(gstMonitor) }

    /// The devices known now (wraps `gst_device_monitor_get_devices`).
    public var devices: [Device] {
        var result: [Device] = []
        var node = gst_device_monitor_get_devices(gstMonitor)
        let head = node
        while let current = node {
            if let data = current.pointee.data {
                // Each element is a full reference.
                result.append(Device(adopting: data.assumingMemoryBound(to: GstObject.self)))
            }
            node = current.pointee.next
        }
        g_list_free(head)
        return result
    }

    /// The bus on which device messages arrive (wraps `gst_device_monitor_get_bus`).
    public var bus: Bus {
        Bus(adopting: UnsafeMutableRawPointer(gst_device_monitor_get_bus(gstMonitor)).assumingMemoryBound(to: GstObject.self))
    }
}

// Thread-safe like every GstObject wrapper (see Object).
extension DeviceMonitor: @unchecked Sendable {}
