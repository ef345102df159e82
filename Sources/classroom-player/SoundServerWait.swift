import Foundation
import GStreamer
import Systemd

/// Waits for a sound server to answer: a kiosk's service may start before PulseAudio or PipeWire
/// is up (`--wait-for-server SECONDS`). Said once on standard error and, under systemd, in `STATUS=`.
enum SoundServerWait {
    /// How often the server is asked again, in seconds.
    static let poll: TimeInterval = 0.25

    /// True as soon as a server answers; false when none did within `seconds`.
    static func answered(within seconds: Double, console: Console) -> Bool {
        if (try? DeviceListing.soundServerAnswers()) == true { return true }
        guard seconds > 0 else { return false }
        let waiting = "no sound server (PulseAudio or PipeWire) answers yet; waiting up to \(String(format: "%g", seconds)) s for one"
        console.err("classroom-player: \(waiting).")
        if ServiceManager.isNotifySocketSet { _ = try? ServiceManager.notify("STATUS=Waiting: \(waiting)") }
        // Monotonic: at boot the wall clock may jump when it is first synchronised.
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: poll)
            if (try? DeviceListing.soundServerAnswers()) == true {
                console.err("classroom-player: a sound server answered; starting.")
                return true
            }
        }
        return false
    }
}
