import CPulse

/// One connection to the sound server, run on the thread that made it, until a deadline: owns a
/// `pa_mainloop` and a `pa_context` and frees both in `deinit`. Requests are made one at a time
/// and their callbacks run inside `pa_mainloop_dispatch` on this thread, so their state lives on
/// the stack of the request (passed unretained: it outlives the loop that calls back).
final class PulseConnection {
    private let loop: OpaquePointer
    private let context: OpaquePointer
    private let deadline: ContinuousClock.Instant

    /// Connects (no autospawn: a kiosk's server is started by the system) and waits until ready.
    init(name: String, deadline: ContinuousClock.Instant) throws(PulseAudioError) {
        guard let loop = pa_mainloop_new() else { throw .connectionFailed("no memory for a main loop") }
        guard let context = pa_context_new(pa_mainloop_get_api(loop), name) else {
            pa_mainloop_free(loop)
            throw .connectionFailed("no memory for a context")
        }
        self.loop = loop
        self.context = context
        self.deadline = deadline
        // From here deinit frees both, whatever is thrown.
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else { throw .connectionFailed(lastError) }
        try run("connecting") { () throws(PulseAudioError) -> Bool in
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: return true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: throw .connectionFailed(lastError)
            default: return false
            }
        }
    }

    deinit {
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_mainloop_free(loop)
    }

    /// The index of this server's playback stream (sink input) whose property `key` is `value`.
    func playbackStream(where key: String, is value: String) throws(PulseAudioError) -> UInt32 {
        let search = StreamSearch(key: key, value: value)
        try perform("listing playback streams", until: { search.finished }) { context in
            pa_context_get_sink_input_info_list(context, { _, info, endOfList, userdata in
                guard let userdata else { return }
                let search = Unmanaged<StreamSearch>.fromOpaque(userdata).takeUnretainedValue()
                if endOfList != 0 {
                    search.failed = endOfList < 0
                    search.finished = true
                    return
                }
                guard let info, let found = pa_proplist_gets(info.pointee.proplist, search.key) else { return }
                if String(cString: found) == search.value { search.index = info.pointee.index }
            }, Unmanaged.passUnretained(search).toOpaque())
        }
        if search.failed { throw .refused("listing playback streams: \(lastError)") }
        guard let index = search.index else { throw .streamNotFound(key: key, value: value) }
        return index
    }

    /// Moves playback stream `index` to the sink named `sink`.
    func move(playbackStream index: UInt32, to sink: String) throws(PulseAudioError) {
        let outcome = RequestOutcome()
        try perform("moving the stream to '\(sink)'", until: { outcome.success != nil }) { context in
            pa_context_move_sink_input_by_name(context, index, sink, { _, success, userdata in
                guard let userdata else { return }
                Unmanaged<RequestOutcome>.fromOpaque(userdata).takeUnretainedValue().success = success != 0
            }, Unmanaged.passUnretained(outcome).toOpaque())
        }
        guard outcome.success == true else { throw .refused("moving the stream to '\(sink)': \(lastError)") }
    }

    /// The server's own name for itself (`pa_context_get_server_info`): "pulseaudio", or "PulseAudio
    /// (on PipeWire 1.4.2)" from pipewire-pulse.
    func serverName() throws(PulseAudioError) -> String {
        let answer = ServerAnswer()
        try perform("asking what the server is", until: { answer.finished }) { context in
            pa_context_get_server_info(context, { _, info, userdata in
                guard let userdata else { return }
                let answer = Unmanaged<ServerAnswer>.fromOpaque(userdata).takeUnretainedValue()
                answer.name = info.flatMap { $0.pointee.server_name }.map { String(cString: $0) }
                answer.finished = true
            }, Unmanaged.passUnretained(answer).toOpaque())
        }
        guard let name = answer.name else { throw .refused("asking what the server is: \(lastError)") }
        return name
    }

    /// Starts a request with `start` and runs the loop until `finished`; cancels it on a timeout.
    private func perform(_ what: String, until finished: () -> Bool, start: (OpaquePointer) -> OpaquePointer?) throws(PulseAudioError) {
        guard let operation = start(context) else { throw .refused("\(what): \(lastError)") }
        defer { pa_operation_unref(operation) }
        do {
            try run(what) { () throws(PulseAudioError) in
                if pa_context_get_state(context) != PA_CONTEXT_READY { throw .connectionFailed(lastError) }
                return finished()
            }
        } catch {
            pa_operation_cancel(operation)   // no callback after this: its state is about to go
            throw error
        }
    }

    /// Iterates the main loop until `done`, polling no longer than the deadline allows.
    private func run(_ what: String, until done: () throws(PulseAudioError) -> Bool) throws(PulseAudioError) {
        while try !done() {
            let left = deadline - .now
            guard left > .zero else { throw .timedOut(what) }
            let microseconds = Int32(min(Double(Int32.max), (left / .microseconds(1)).rounded(.up)))
            guard pa_mainloop_prepare(loop, microseconds) >= 0, pa_mainloop_poll(loop) >= 0, pa_mainloop_dispatch(loop) >= 0 else {
                throw .connectionFailed("the client's main loop stopped while \(what)")
            }
        }
    }

    /// The context's last error, as libpulse words it.
    private var lastError: String {
        String(cString: pa_strerror(pa_context_errno(context)))
    }
}

/// What a sink-input listing found; filled by its callback on the connection's thread.
private final class StreamSearch {
    let key: String
    let value: String
    var index: UInt32?
    var failed = false
    var finished = false

    init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// What the server said it is; filled by its callback on the connection's thread.
private final class ServerAnswer {
    var name: String?
    var finished = false
}

/// Whether a request the server answers with success or failure succeeded; nil until it answers.
private final class RequestOutcome {
    var success: Bool?
}
