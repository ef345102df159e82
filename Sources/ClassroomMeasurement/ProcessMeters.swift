import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's clocks and memory, read from the kernel.
public enum ProcessMeters {
    /// CLOCK_MONOTONIC in nanoseconds: the time base of GStreamer's system clock, shared by every process.
    public static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// User + system CPU seconds this process has used (getrusage RUSAGE_SELF).
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_utime.seconds + usage.ru_stime.seconds
    }

    /// The peak resident set size so far, in KiB (getrusage ru_maxrss).
    public static func peakRSSKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }

    /// The resident set size now, in KiB (/proc/self/statm, second field, in pages).
    public static func currentRSSKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

extension timeval {
    /// The interval in seconds.
    public var seconds: Double { Double(tv_sec) + Double(tv_usec) / 1e6 }
}
