/// Why the benchmark could not make a measurement.
struct BenchError: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
