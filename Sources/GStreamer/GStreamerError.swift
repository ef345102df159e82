/// Everything the GStreamer bindings can fail with, each case readable by a kiosk operator.
public enum GStreamerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `gst_init` failed.
    case initializationFailed(String)
    /// No plugin provides this element; the package that does is named.
    case missingElement(String, package: String)
    /// The factory exists but refused to create an element.
    case elementCreationFailed(String)
    /// The object has no such property.
    case noSuchProperty(object: String, property: String)
    /// The property exists but cannot take this value (type, range, unknown enum nick).
    case invalidPropertyValue(object: String, property: String, reason: String)
    /// The property can only be set when the element is created: use `ElementFactory.make(_:name:properties:)`.
    case constructOnlyProperty(object: String, property: String)
    /// A description given to `gst_parse_launch` is wrong.
    case parseFailed(description: String, error: GLibError)
    /// A state change failed; the bus error, if any, says why.
    case stateChangeFailed(element: String, target: State, error: GLibError?, debug: String?)
    /// A state change did not finish within the allowed time.
    case stateChangeTimedOut(element: String, target: State, waited: ClockTime)
    /// Two pads or elements could not be linked.
    case linkFailed(PadLinkError)
    /// An element was added to a bin that already has an element of this name, or already has a parent.
    case addFailed(element: String, bin: String)
    /// An element could not be removed from a bin (it is not a child).
    case removeFailed(element: String, bin: String)
    /// The element has no pad of that name or template.
    case noSuchPad(element: String, pad: String)
    /// An object was not of the expected type.
    case wrongType(object: String, expected: String, actual: String)
    /// Data could not be pushed or pulled.
    case flow(FlowError)
    /// Caps or a structure could not be parsed from a string.
    case invalidCaps(String)
    /// A query was not answered by the element.
    case queryFailed(element: String, query: String)
    /// An event was not handled by the element.
    case eventNotHandled(element: String, event: String)
    /// The device monitor could not start (no provider answered).
    case deviceMonitorFailed(String)
    /// Something else failed; the message says what.
    case failed(String)

    public var description: String {
        switch self {
        case .initializationFailed(let why):
            return "GStreamer could not start: \(why). Check that the GStreamer 1.22 runtime is installed (make setup)."
        case .missingElement(let name, let package):
            return "The GStreamer element '\(name)' is not installed. Install the Debian package \(package) (make setup installs it)."
        case .elementCreationFailed(let name):
            return "GStreamer could not create an element '\(name)'; its plugin is installed but refused (see GST_DEBUG=\(name):4)."
        case .noSuchProperty(let object, let property):
            return "'\(object)' has no property '\(property)' (gst-inspect-1.0 lists the properties)."
        case .invalidPropertyValue(let object, let property, let reason):
            return "Cannot set '\(property)' on '\(object)': \(reason)."
        case .constructOnlyProperty(let object, let property):
            return "'\(property)' on '\(object)' can only be set when the element is created; pass it to ElementFactory.make(properties:)."
        case .parseFailed(let description, let error):
            return "The pipeline description is wrong: \(error.message). Description: \(description)"
        case .stateChangeFailed(let element, let target, let error, let debug):
            var text = "'\(element)' could not go to \(target)"
            if let error { text += ": \(error.message)" }
            if let debug, !debug.isEmpty { text += " [\(debug)]" }
            return text
        case .stateChangeTimedOut(let element, let target, let waited):
            return "'\(element)' did not reach \(target) within \(waited); a sink may be waiting for data or a device."
        case .linkFailed(let error):
            return error.description
        case .addFailed(let element, let bin):
            return "Cannot add '\(element)' to '\(bin)': the name is taken there or the element already has a parent."
        case .removeFailed(let element, let bin):
            return "Cannot remove '\(element)' from '\(bin)': it is not a child of that bin."
        case .noSuchPad(let element, let pad):
            return "'\(element)' has no pad '\(pad)'."
        case .wrongType(let object, let expected, let actual):
            return "'\(object)' is a \(actual), not a \(expected)."
        case .flow(let error):
            return error.description
        case .invalidCaps(let text):
            return "Cannot parse caps or structure '\(text)'."
        case .queryFailed(let element, let query):
            return "'\(element)' did not answer the \(query) query (not prerolled yet, or not supported)."
        case .eventNotHandled(let element, let event):
            return "'\(element)' did not handle the \(event) event."
        case .deviceMonitorFailed(let why):
            return "Audio devices cannot be watched: \(why). Is the sound server (PulseAudio) running?"
        case .failed(let why):
            return why
        }
    }
}

/// Why two pads did not link (`GstPadLinkReturn`), with the pads involved.
public struct PadLinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason GStreamer gave.
    public enum Reason: Sendable, Equatable {
        /// The pads have no common grandparent (`GST_PAD_LINK_WRONG_HIERARCHY`): add both elements to the same bin first.
        case wrongHierarchy
        /// A pad was already linked (`GST_PAD_LINK_WAS_LINKED`).
        case wasLinked
        /// The pads have the wrong direction (`GST_PAD_LINK_WRONG_DIRECTION`).
        case wrongDirection
        /// The pads have no common format (`GST_PAD_LINK_NOFORMAT`).
        case noFormat
        /// The pads cannot cooperate in scheduling (`GST_PAD_LINK_NOSCHED`).
        case noScheduling
        /// The link was refused for another reason (`GST_PAD_LINK_REFUSED`).
        case refused
        /// No free pad was found that could link.
        case noPad
    }

    /// Why it failed.
    public var reason: Reason
    /// "element:pad" of the source side.
    public var source: String
    /// "element:pad" of the sink side.
    public var sink: String

    public var description: String {
        let why: String
        switch reason {
        case .wrongHierarchy: why = "they are not in the same bin"
        case .wasLinked: why = "one of them is already linked"
        case .wrongDirection: why = "their directions do not fit (source must link to sink)"
        case .noFormat: why = "they have no audio/video format in common (add a converter or change the caps)"
        case .noScheduling: why = "they cannot be scheduled together"
        case .refused: why = "the link was refused"
        case .noPad: why = "no free, compatible pad was found"
        }
        return "Cannot link \(source) to \(sink): \(why)."
    }
}

/// A non-OK `GstFlowReturn`: why data could not flow.
public enum FlowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Downstream is flushing or the element is stopped (`GST_FLOW_FLUSHING`).
    case flushing
    /// The pad is not linked (`GST_FLOW_NOT_LINKED`).
    case notLinked
    /// End of stream was already signalled (`GST_FLOW_EOS`).
    case endOfStream
    /// Downstream could not negotiate a format (`GST_FLOW_NOT_NEGOTIATED`).
    case notNegotiated
    /// A fatal error happened downstream (`GST_FLOW_ERROR`).
    case error
    /// The operation is not supported (`GST_FLOW_NOT_SUPPORTED`).
    case notSupported
    /// The data given does not fit the declared format.
    case wrongFormat(String)
    /// Another code.
    case other(Int)

    init?(_ value: GstFlowReturnValue) {
        switch value {
        case 0: return nil
        case -2: self = .flushing
        case -1: self = .notLinked
        case -3: self = .endOfStream
        case -4: self = .notNegotiated
        case -5: self = .error
        case -6: self = .notSupported
        default: self = .other(Int(value))
        }
    }

    public var description: String {
        switch self {
        case .flushing: return "The element is stopped or flushing; start the pipeline before pushing."
        case .notLinked: return "The element's output is not linked to anything."
        case .endOfStream: return "The stream has already ended; no more data is accepted."
        case .notNegotiated: return "Downstream did not accept the data's format."
        case .error: return "A fatal error happened downstream; the bus error says which."
        case .notSupported: return "The operation is not supported."
        case .wrongFormat(let why): return "The data does not fit the declared format: \(why)."
        case .other(let code): return "Data flow failed with GstFlowReturn \(code)."
        }
    }
}

/// Raw value of a `GstFlowReturn`.
typealias GstFlowReturnValue = Int32
