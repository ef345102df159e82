/// The lesson's playback rates: slower for beginners, faster for review; scaletempo keeps the pitch.
enum LessonRate {
    /// The slowest rate.
    static let slowest = 0.5
    /// The fastest rate.
    static let fastest = 2.0
}
