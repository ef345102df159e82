import Dispatch
import GStreamer
import PulseAudio

/// On PulseAudio the output plays a sample within a few milliseconds of its running time plus the
/// output latency, not up to half of pulsesink's drift tolerance later (WORKAROUNDS §34): the echo
/// canceller, the video and every mouth-to-ear path take that time as given.
///
/// pulsesink's clock starts tens of milliseconds behind the pipeline's (more when the server holds a
/// new stream), and skew slaving corrects a whole tolerance at a time until the averaged skew is
/// within half of it: at the default 40 ms a stream stays about 20 ms late for as long as it plays.
/// So on PulseAudio the output opens with a 10 ms tolerance and relaxes to the default once settled:
/// left tight, every burst of a busy machine's jitter would be corrected too, and each correction is
/// a jump in the audio. Not on PipeWire's pulse server, where a tight tolerance moved the playout
/// later and kept correcting in 10 ms steps.
extension AudioEngine {
    /// True while the output's clock is still being aligned: on PulseAudio from an opening until
    /// the tolerance relaxes. A listener judging steady playout waits for it (the sink's corrections
    /// until then are steps in the audio).
    public var isAligningOutput: Bool { alignment.withLock { $0.aligning } }

    /// The tolerance the output opens with on PulseAudio: corrections stop within 5 ms.
    static let settlingDriftTolerance = ClockTime.milliseconds(10)
    /// pulsesink's default: the tolerance once settled, and PipeWire's throughout.
    static let settledDriftTolerance = ClockTime.milliseconds(40)
    /// How long the stream plays at the clock's pace with no correction of the sink's clock before
    /// the tolerance relaxes. The corrections come at nearly every buffer until they are done (about
    /// 100 of them over 2-3 s after a held start, WORKAROUNDS §34); an idle device may hold a new
    /// stream seconds first (§17).
    static let alignmentSettle = Duration.seconds(2)
    /// The longest the tolerance stays tight, whatever the stream does.
    public static let alignmentLimit = Duration.seconds(15)
    /// How often the stream is looked at meanwhile.
    static let alignmentCheck = Duration.milliseconds(250)
    /// How long opening the output waits for the server to say what it is.
    static let serverNameTimeout = Duration.milliseconds(500)

    /// Before the output opens (start, restart): asks the server what it is, and opens the sink
    /// with a tight tolerance on PulseAudio itself. Caller's thread; sound-server outputs only.
    func chooseAlignment() {
        guard output.isSoundServer else { return }
        let tight: Bool
        do {
            let name = try soundServer.serverName(within: Self.serverNameTimeout)
            tight = !PulseClient.isPipeWire(name)
            logger.debug("the sound server is '\(name)': the output \(tight ? "opens with a tight drift tolerance" : "keeps pulsesink's drift tolerance")")
        } catch {
            // Opening goes on and fails with its own reason if the server is not there.
            logger.info("the output keeps pulsesink's drift tolerance: \(error)")
            tight = false
        }
        alignment.withLock { $0.tight = tight }
        if tight { hearCorrections() }
        setDriftTolerance(tight ? Self.settlingDriftTolerance : Self.settledDriftTolerance)
    }

    /// The sink is in READY for a reopen: it opens tight again where it did at start.
    func tightenAlignment() {
        guard alignment.withLock({ $0.tight }) else { return }
        setDriftTolerance(Self.settlingDriftTolerance)
    }

    /// Relaxes the tolerance once the stream has played at the clock's pace, and the sink has not
    /// corrected its clock, for `alignmentSettle` (at the latest `alignmentLimit` from now), unless
    /// the output opens again meanwhile, which calls this again. Only where the output opens tight.
    func relaxAlignmentLater() {
        let opening: Int? = alignment.withLock { alignment in
            guard alignment.tight else { return nil }
            alignment.opening += 1
            alignment.aligning = true
            return alignment.opening
        }
        guard let opening else { return }
        checkAlignment(opening: opening, since: .now, atPaceSince: nil)
    }

    private func checkAlignment(opening: Int, since opened: ContinuousClock.Instant, atPaceSince: ContinuousClock.Instant?) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(Self.alignmentCheck / .milliseconds(1)))) { [weak self] in
            guard let self else { return }
            let (current, lastCorrection) = alignment.withLock { ($0.opening == opening, $0.lastCorrection) }
            guard current else { return }
            let now = ContinuousClock.now
            let atPace = outputKeepsPace
            let since = atPace ? (atPaceSince ?? now) : nil
            let corrected: Duration? = lastCorrection.map { now - $0 }
            let quiet = corrected.map { $0 >= Self.alignmentSettle } ?? true
            if let since, now - since >= Self.alignmentSettle, quiet {
                relax(opening)
                logger.debug("the output's drift tolerance relaxed to \(Self.settledDriftTolerance.milliseconds) ms")
            } else if now - opened >= Self.alignmentLimit {
                relax(opening)
                logger.info("the output's drift tolerance relaxed to \(Self.settledDriftTolerance.milliseconds) ms before the sink's clock settled (\(atPace ? "at the clock's pace" : "not at the clock's pace"), last corrected \(corrected.map { "\($0) ago" } ?? "never"))")
            } else {
                checkAlignment(opening: opening, since: opened, atPaceSince: since)
            }
        }
    }

    private func relax(_ opening: Int) {
        setDriftTolerance(Self.settledDriftTolerance)
        alignment.withLock { if $0.opening == opening { $0.aligning = false } }
    }

    /// Hears the sink correct its clock (audiobasesink says so only in its log, as a WARNING); once per engine.
    private func hearCorrections() {
        guard alignment.withLock({ $0.corrections == nil }) else { return }
        do {
            let watch = try DebugLogWatch(category: "audiobasesink", level: .warning, containing: "correct clock skew", about: outputSink) { [weak self] in
                // On the streaming thread: note the time and return.
                self?.alignment.withLock { $0.lastCorrection = .now }
            }
            alignment.withLock { $0.corrections = watch }
        } catch {
            logger.warning("the output's clock corrections will not be heard; its drift tolerance relaxes on pace alone: \(error)")
        }
    }

    /// A plain property of audiobasesink, read under the sink's object lock: safe while it plays.
    private func setDriftTolerance(_ tolerance: ClockTime) {
        do {
            try outputSink.set("drift-tolerance", .int(tolerance.microseconds))
        } catch {
            logger.warning("the output's drift tolerance stays where it was: \(error)")
        }
    }
}

/// The output's alignment, owned by the engine (`AudioEngine.alignment`).
struct OutputAlignmentState {
    /// The output opens with a tight tolerance (the server is PulseAudio itself).
    var tight = false
    /// Which opening the pending relax belongs to.
    var opening = 0
    /// From an opening until the tolerance relaxes.
    var aligning = false
    /// When the sink last corrected its clock, and the watch that hears it.
    var lastCorrection: ContinuousClock.Instant?
    var corrections: DebugLogWatch?
}
