/// Why a measurement could not be made (not a failed goal: that is a figure).
public struct MeasurementError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for the report.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
