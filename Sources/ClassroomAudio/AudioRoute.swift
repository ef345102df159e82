/// Where the session's audio goes and comes from.
public struct AudioRoute: Sendable, Hashable, CustomStringConvertible {
    /// The output, or nil when the category does not play or no output device is suitable.
    public let output: RoutePort?
    /// The input, or nil when the category does not record or no input device is suitable.
    public let input: RoutePort?

    /// Describes a route.
    public init(output: RoutePort?, input: RoutePort?) {
        self.output = output
        self.input = input
    }

    /// The route with nothing connected.
    public static let none = AudioRoute(output: nil, input: nil)

    /// "out headphones:headset, in headsetMic:headset_mic".
    public var description: String {
        "out \(output.map(String.init(describing:)) ?? "none"), in \(input.map(String.init(describing:)) ?? "none")"
    }
}
