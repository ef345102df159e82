/// The long help of `play`: the timeline, the control protocol, the events and the exit
/// statuses, generated from the tables the code uses so it cannot drift from them.
enum PlayHelp {
    static var discussion: String {
        """
        The lesson's audio goes into the engine's courseware input and the live feed into an RTC \
        input, mixed in one audiomixer (the mixed stream) and played on the output. Without \
        --script or a stop, play runs until the lesson ends (the live feed alone does not keep it \
        running unless --until-live-ends); with --script it also waits until every step has run. \
        Ctrl-C and SIGTERM stop cleanly: a WAV output is finalised, never truncated.

        TIMELINE (--script FILE): a JSON array of steps {"at": SECONDS, "do": VERB, ...fields}; \
        "at" counts seconds since play started (not the lesson position). Every step is checked \
        before anything plays; an unknown verb or field is an error (exit 64). Each step's result \
        is a "step" event.

        CONTROL: one JSON object per line on standard input (answers on standard output) and on \
        --control PATH; the same verbs as the timeline, without "at", plus "status". An optional \
        "id" is echoed in the answer. Every line is answered with one JSON line: \
        {"ok":true,"do":VERB,...} or {"ok":false,"error":CODE,"message":...}.

        VERBS:
        \(verbs)

        ERROR CODES:
        \(errors)

        EVENTS: JSON lines in --events PATH, or on standard error: {"t": seconds since play \
        started, "event": NAME, ...}; on a terminal the same events as plain lines, under systemd \
        journal entries. Names: started, step, lesson-ended, lesson-looped (count), lesson-paused, \
        lesson-resumed, lesson-seeked, lesson-failed, lesson-loaded, lesson-track, lesson-rate, live-started, \
        live-receiving (first audio), live-latched (the RTP sender a \
        port plays), live-rejected (packets of another sender or payload type, said once per kind), live-ended, live-failed, \
        live-removed, live-jitter-buffer (the adaptive buffer moved), live-loss-recovery (Opus FEC from a first loss on), \
        room-warning, room-joined, room-connection, room-participant, room-silent, room-lost, room-refused, room-left, \
        participant-joined, participant-left, participant-talking (a VideoRoom room's classmates), \
        output-underrun (the output buffer grew), echo-path (the echo canceller follows a new path), \
        metrics-listening, metrics-server, mpris-exported, control-socket, \
        microphone, microphone-failed (--mic-on could not connect it), configuration-changed, route-changed, volume-changed, ducking-changed, \
        activation-changed, interruption-began, interruption-ended, lesson-pause-requested, \
        policy-corrected, alarm (with code, number, owner, message, context), alarm-cleared, \
        media-services-lost, media-services-reset, engine-error, output-lost, device-choice-ended, \
        output-failed (the WAV output cannot be written: the run ends), uplink-failed (an uplink WAV cannot \
        be written: the class goes on), \
        snapshot, snapshot-failed, stop-requested, stopped (reason, exit status, seconds, levels). \
        Log messages are plain text on standard error.

        OUTPUT: standard output carries where the sound goes, the answers to standard-input \
        commands (lines starting with "{") and a one-line summary at the end (seconds, level, \
        events). On a terminal a progress line shows position/duration, profile, volume, route, \
        microphone and levels; it is never written when standard output is not a terminal.

        EXIT STATUS:
        \(ExitStatus.helpTable)

        Examples:
          classroom-player samples/lesson.webm --live samples/live-feed.ogg
          classroom-player play lesson.webm --live rtp://127.0.0.1:5004 --output wav:out/mix.wav
          classroom-player play lesson.webm --mic samples/student-mic.ogg --script samples/demo-timeline.json
          echo '{"do":"status"}' | classroom-player play lesson.webm --output null
        """
    }

    private static var verbs: String {
        Command.verbs.map { verb in
            let fields = verb.fields.map { "\"\($0.name)\": \($0.type)\($0.required ? "" : " (optional)")" }
            let example = (["\"do\":\"\(verb.name)\""] + fields).joined(separator: ", ")
            return "  {\(example)}\(verb.timeline ? "" : "  [control only]")\n      \(verb.summary)"
        }.joined(separator: "\n")
    }

    private static var errors: String {
        CommandError.Code.allCases.map { "  \($0.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0))\($0.meaning)" }.joined(separator: "\n")
    }
}
