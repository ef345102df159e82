import CGStreamer

/// How an interpolation control source fills the time between its points (`GstInterpolationMode`).
public enum InterpolationMode: Sendable, Hashable {
    /// Holds each value until the next point (steps).
    case none
    /// Straight lines between points: a linear ramp.
    case linear
    /// Smooth cubic curve through the points, without overshoot.
    case cubicMonotonic

    var raw: GstInterpolationMode {
        switch self {
        case .none: return GST_INTERPOLATION_MODE_NONE
        case .linear: return GST_INTERPOLATION_MODE_LINEAR
        case .cubicMonotonic: return GST_INTERPOLATION_MODE_CUBIC_MONOTONIC
        }
    }
}

/// A timeline of values for a property, interpolated between points (`GstInterpolationControlSource`).
///
/// Times are the stream time of the buffers at the controlled element; after a live audiomixer
/// that equals running time. Bind it with `Element.bindAbsolute(_:to:)`.
public final class InterpolationControlSource: Object {
    override class var gType: GType? { gst_interpolation_control_source_get_type() }

    /// A control source interpolating with `mode` (wraps `gst_interpolation_control_source_new`).
    public convenience init(mode: InterpolationMode) throws(GStreamerError) {
        try GStreamer.initialize()
        // gst_interpolation_control_source_new: transfer full (the constructor clears the floating flag).
        self.init(adopting: UnsafeMutableRawPointer(gst_interpolation_control_source_new()).assumingMemoryBound(to: GstObject.self))
        try set("mode", .int(Int64(mode.raw.rawValue)))
    }

    var timedSource: UnsafeMutablePointer<GstTimedValueControlSource> { pointer(as: GstTimedValueControlSource.self) }

    /// Adds or replaces the point at `time` (wraps `gst_timed_value_control_source_set`).
    @discardableResult
    public func set(at time: ClockTime, value: Double) -> Bool {
        gst_timed_value_control_source_set(timedSource, time.gst, value) != 0
    }

    /// Removes every point (wraps `gst_timed_value_control_source_unset_all`).
    public func unsetAll() { gst_timed_value_control_source_unset_all(timedSource) }

    /// Number of points (wraps `gst_timed_value_control_source_get_count`).
    public var pointCount: Int { Int(gst_timed_value_control_source_get_count(timedSource)) }

    /// The interpolated value at `time` (wraps `gst_control_source_get_value`).
    public func value(at time: ClockTime) -> Double? {
        var value: gdouble = 0
        guard gst_control_source_get_value(pointer(as: GstControlSource.self), time.gst, &value) != 0 else { return nil }
        return value
    }
}

/// A control source bound to one property of one element (`GstControlBinding`).
public final class ControlBinding: Object {
    override class var gType: GType? { gst_control_binding_get_type() }

    /// While disabled, plain property sets take effect again (wraps `gst_control_binding_set_disabled`).
    public var isDisabled: Bool {
        get { gst_control_binding_is_disabled(pointer(as: GstControlBinding.self)) != 0 }
        set { gst_control_binding_set_disabled(pointer(as: GstControlBinding.self), newValue ? 1 : 0) }
    }
}

extension Element {
    /// Drives `property` from `source` with real property values (not 0…1 mapped onto the range),
    /// evaluated per sample by elements such as `volume` (wraps `gst_direct_control_binding_new_absolute`
    /// and `gst_object_add_control_binding`). Replaces any earlier binding of the property.
    @discardableResult
    public func bindAbsolute(_ property: String, to source: InterpolationControlSource) throws(GStreamerError) -> ControlBinding {
        guard hasProperty(property) else { throw .noSuchProperty(object: name, property: property) }
        guard let raw = gst_direct_control_binding_new_absolute(gstObject, property, source.pointer(as: GstControlSource.self)) else {
            throw .invalidPropertyValue(object: name, property: property, reason: "it cannot be controlled (not GST_PARAM_CONTROLLABLE)")
        }
        // Floating: our wrapper sinks it, then the element takes its own reference.
        let binding = ControlBinding(retaining: UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstObject.self))
        guard gst_object_add_control_binding(gstObject, binding.pointer(as: GstControlBinding.self)) != 0 else {
            throw .invalidPropertyValue(object: name, property: property, reason: "the control binding was refused")
        }
        return binding
    }

    /// Removes the control binding of `property`, handing it back to plain sets (wraps `gst_object_remove_control_binding`).
    public func unbind(_ binding: ControlBinding) {
        gst_object_remove_control_binding(gstObject, binding.pointer(as: GstControlBinding.self))
    }
}

// Thread-safe like every GstObject wrapper (see Object).
extension InterpolationControlSource: @unchecked Sendable {}

// Thread-safe like every GstObject wrapper (see Object).
extension ControlBinding: @unchecked Sendable {}
