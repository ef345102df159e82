import CGStreamer

/// An audio or video device found by a `DeviceMonitor` (`GstDevice`).
public final class Device: Object {
    override class var gType: GType? { gst_device_get_type() }

    var gstDevice: UnsafeMutablePointer<GstDevice> { pointer(as: GstDevice.self) }

    /// The name shown to people, e.g. "USB Headset" (wraps `gst_device_get_display_name`).
    public var displayName: String {
        guard let name = gst_device_get_display_name(gstDevice) else { return "" }
        defer { g_free(name) }
        return String(cString: name)
    }

    /// The device class, e.g. "Audio/Sink" or "Audio/Source" (wraps `gst_device_get_device_class`).
    public var deviceClass: String {
        guard let text = gst_device_get_device_class(gstDevice) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// The formats it supports (wraps `gst_device_get_caps`).
    public var caps: Caps? { gst_device_get_caps(gstDevice).map(Caps.init(adopting:)) }

    /// Its properties: for PulseAudio the proplist (`device.form_factor`, `device.bus`,
    /// `device.api`, `device.class`, …) plus `is-default` (wraps `gst_device_get_properties`).
    public var properties: Structure? { gst_device_get_properties(gstDevice).map(Structure.init(adopting:)) }

    /// The sound server's name for it (PulseAudio's sink or source name), read from its element's `device` property.
    public var serverName: String? {
        guard let element = try? createElement(name: nil) else { return nil }
        return (try? element.string("device")) ?? nil
    }

    /// True for "Audio/Sink" devices.
    public var isAudioSink: Bool { deviceClass.split(separator: "/").contains("Sink") && deviceClass.hasPrefix("Audio") }
    /// True for "Audio/Source" devices (sink monitors included; check `device.class`).
    public var isAudioSource: Bool { deviceClass.split(separator: "/").contains("Source") && deviceClass.hasPrefix("Audio") }

    /// A source or sink element bound to this device (wraps `gst_device_create_element`).
    public func createElement(name: String? = nil) throws(GStreamerError) -> Element {
        guard let element = gst_device_create_element(gstDevice, name) else {
            throw .elementCreationFailed("element for device '\(displayName)'")
        }
        // gst_device_create_element: transfer floating.
        return Element(retaining: UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self))
    }

    /// Points an existing element made for a device of the same kind at this device; pulsesink
    /// moves its stream without stopping (wraps `gst_device_reconfigure_element`).
    public func reconfigure(_ element: Element) throws(GStreamerError) {
        guard gst_device_reconfigure_element(gstDevice, element.gstElement) != 0 else {
            throw .failed("'\(element.name)' cannot be pointed at device '\(displayName)'.")
        }
    }
}

// Thread-safe like every GstObject wrapper (see Object).
extension Device: @unchecked Sendable {}
