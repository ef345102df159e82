// A lesson, a classmate and the student's microphone through the classroom engine: the lesson and
// the classmate are mixed into MIX.wav, the processed microphone goes up as RTP (Opus) and into
// UPLINK.wav. A kiosk would play on `.soundServer(device: nil)`, take the microphone from the
// route, and hear its classmates over RTP (`PeerSource.rtp`) or a Janus room (`JanusRoom`).
//
//   embed LESSON CLASSMATE MIC MIX.wav UPLINK.wav
import ClassroomAudio
import ClassroomEngine
import ClassroomNetwork
import Foundation
import GStreamer
import Logging

let arguments = CommandLine.arguments.dropFirst().map { $0 }
guard arguments.count == 5 else {
    print("usage: embed LESSON CLASSMATE MIC MIX.wav UPLINK.wav")
    exit(64)
}
let (lessonPath, classmatePath, micPath, mixPath, uplinkPath) = (arguments[0], arguments[1], arguments[2], arguments[3], arguments[4])
let logger = Logger(label: "embed")

do {
    // snippet: begin (README.md and docs/INTEGRATING.md show these lines; make test checks they match)
    try GStreamer.initialize()
    // The uplink: every 10 ms frame of the processed microphone, encoded to each destination.
    let uplink = try UplinkSender(destinations: [.wav(path: uplinkPath), .rtp(try RTPEndpoint(uri: "rtp://127.0.0.1:5004"))], logger: logger)
    let controller = try SessionController(output: .wavFile(path: mixPath), microphone: .fixed(.file(path: micPath)),
                                           mixReachesMicrophone: false, logger: logger) { frame in uplink.send(frame) }
    try controller.start()
    try uplink.start()

    // A classmate, pushed into an RTC input of its own (here a file, played in real time).
    let classmate = try PeerFeed(source: .file(path: classmatePath, uri: URL(fileURLWithPath: classmatePath).absoluteString),
                                 input: try controller.engine.addRTCInput(id: "classmate", format: PeerFeed.format), logger: logger)
    try classmate.start { event in print("classmate: \(event)") }

    // The courseware: decoded, its audio mixed with the classmate's.
    let lesson = try controller.loadLesson(uri: URL(fileURLWithPath: lessonPath).absoluteString, video: .discard)
    let ended = DispatchSemaphore(value: 0)
    let watching = lesson.observe { event in
        if case .ended = event { ended.signal() }
        if case .failed(let why) = event { print("lesson: \(why)"); ended.signal() }
    }
    try lesson.play()

    // The student speaks: the voice profile and the call volume, with no gap in the lesson.
    try controller.connectMicrophone()
    let duck = try controller.session.duck(owner: "effects")     // an effect plays: the lesson −20 dB
    Thread.sleep(forTimeInterval: 1)
    try controller.session.releaseDuck(duck)
    // snippet: end

    ended.wait()
    _ = watching
    classmate.stop()
    controller.stop()        // finalises MIX.wav
    uplink.stop()            // finalises UPLINK.wav
    print("mixed \(String(format: "%.1f", classmate.secondsPushed)) s of the classmate; sent \(uplink.framesSent) microphone frames up")
} catch {
    print("embed: \(error)")
    exit(1)
}
