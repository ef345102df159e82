import ClassroomMeasurement
import Foundation
import Testing

/// A teacher in a real browser in the same WebRTC room as a kiosk (#22 item 5).
@Suite("classroom-player: a browser teacher in the WebRTC room", .serialized)
struct BrowserTeacherTests {
    @Test("a teacher in a real browser (headless Chromium, janus.js from Debian) and a kiosk in room 2222 over WebRTC: the kiosk hears the teacher's speech, and the page's AnalyserNode hears the kiosk's student once its microphone is on, the floor before",
          .enabled(if: WebRTCRoomRig.available && BrowserTeacher.available, "needs root, iproute2, a Janus with its janus.js (scripts/janus-server.sh --check) and chromium"))
    func browserTeacher() async throws {
        let began = Date()
        let rig = try WebRTCRoomRig()
        defer { rig.tearDown() }
        let (net, folder) = (rig.net, rig.folder)
        let teacherBand = WebRTCRoomRig.teacherBand, studentBand = WebRTCRoomRig.studentBand
        // The browser's fake microphone loops its WAV; the kiosk's student talks to the lesson's end.
        let voice = rig.teacher, studentTwice = try rig.repeated(rig.student, times: 2)
        // The student is silent until the kiosk has joined.
        let micOn = 5.0
        let timeline = try rig.microphoneOn(at: micOn)
        let janus = try await rig.startJanus()

        let teacher = try BrowserTeacher(net, in: net.kiosks, server: "http://\(net.serverAddress):8088/janus", room: 2222, display: "browser-teacher", microphone: voice, folder: folder)
        defer { teacher.stop() }
        let pageUp = await teacher.reached("webrtc-up", within: .seconds(20))
        let pageUpAfter = Date().timeIntervalSince(began)
        let kioskStarted = Date()
        let wav = folder.appendingPathComponent("kiosk.wav")
        let (kiosk, events) = try rig.kiosk("kiosk", room: rig.api(room: 2222) + "&display=kiosk", ["--mic", studentTwice.path, "--script", timeline.path, "--output", "wav:\(wav.path)"])
        let status = try await kiosk.exitStatus(within: .seconds(40))
        teacher.stop()

        let joined = Fixtures.events(events, named: "room-joined").first?["t"] as? Double
        let kioskHearsTeacher = try Fixtures.bandLevel(wav, from: (joined ?? 0) + 1.5, to: 11.5, band: teacherBand)
        let kioskHearsItself = try Fixtures.bandLevel(wav, from: (joined ?? 0) + 1.5, to: 11.5, band: studentBand)
        // The page's levels (each over the analyser's last ~0.7 s) while the kiosk is in the room with its
        // microphone off, then while its student talks; none before the kiosk has joined.
        let before = joined.map { teacher.levels(from: kioskStarted.addingTimeInterval($0 + 0.7), to: kioskStarted.addingTimeInterval(micOn - 0.2)) } ?? []
        let talking = teacher.levels(from: kioskStarted.addingTimeInterval(micOn + 1.5), to: kioskStarted.addingTimeInterval(11.5))
        func median(_ levels: [Double]) -> Double { levels.isEmpty ? -.infinity : levels.sorted()[levels.count / 2] }
        func dB(_ value: Double) -> String { String(format: "%.1f", value) }
        print("FIGURE browser teacher: page up (webrtc) \(dB(pageUpAfter)) s into the test, "
              + "kiosk joined \(joined.map { String(format: "%.2f", $0) } ?? "-") s after its start; kiosk hears the teacher \(dB(kioskHearsTeacher)) dBFS (itself \(dB(kioskHearsItself)))")
        print("FIGURE browser teacher's analyser: kiosk's student talking median \(dB(median(talking))) dBFS (min \(dB(talking.min() ?? -.infinity)), \(talking.count) reports), "
              + "microphone off median \(dB(median(before))) dBFS (max \(dB(before.max() ?? -.infinity)), \(before.count) reports); run \(dB(Date().timeIntervalSince(began))) s")
        #expect(pageUp, "the page did not get WebRTC up: \(teacher.states)\nchromium: \(teacher.log)\njanus: \(janus.log.suffix(2000))")
        #expect(!teacher.states.contains("failed"), "chromium: \(teacher.log)")
        #expect(joined != nil && status == 0, "kiosk: \(kiosk.stderr)\njanus: \(janus.log.suffix(2000))")
        #expect(kioskHearsTeacher > -50, "the kiosk hears the browser teacher: \(kioskHearsTeacher) dBFS")
        #expect(kioskHearsItself < kioskHearsTeacher - 20, "the room's mix leaves the kiosk's own voice out: \(kioskHearsItself) dBFS")
        #expect(talking.count >= 6 && median(talking) > -50, "the page hears the kiosk's student: \(talking)")
        #expect(!before.isEmpty && (before.max() ?? 0) < -70, "the page hears nothing while the student's microphone is off: \(before)")
    }
}
