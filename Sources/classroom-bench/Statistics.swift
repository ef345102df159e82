/// Order statistics of a sample.
extension Array where Element == Double {
    /// The median (the mean of the two middle values for an even count); nan when empty.
    var median: Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The value below which `fraction` of the sample lies (nearest rank); nan when empty.
    func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return .nan }
        let sorted = self.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank))]
    }
}
