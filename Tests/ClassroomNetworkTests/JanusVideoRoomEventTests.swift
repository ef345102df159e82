import Testing
@testable import ClassroomNetwork

/// What a kiosk reads from Janus's VideoRoom: the shapes here are those Janus 1.1 sends
/// (captured from the SFU room's rig), trimmed to the fields the kiosk reads.
@Suite("A VideoRoom's events")
struct JanusVideoRoomEventTests {
    private func decode(_ data: [String: Any], jsep: [String: Any]? = nil) -> JanusProtocol.VideoRoomEvent? {
        guard case let .videoRoom(event, sender, transaction) = JanusProtocol.videoRoomEvent(data, jsep: jsep, sender: 7, transaction: "t-1") else { return nil }
        #expect(sender == 7 && transaction == "t-1")
        return event
    }

    @Test("joined carries our id, the private id and who publishes audio already; a display name is cut to a name's length")
    func joined() throws {
        let event = decode(["videoroom": "joined", "room": 5555, "id": 11, "private_id": 99, "publishers": [
            ["id": 21, "display": "kiosk-b", "streams": [["type": "audio", "mid": "0", "codec": "opus"]]],
            ["id": 22, "display": String(repeating: "x", count: 500), "streams": [["type": "audio", "mid": "0", "disabled": true]]],
            ["id": 23, "streams": [["type": "video", "mid": "1"]]],
            ["display": "no id"],
        ]])
        guard case let .joined(id, privateID, publishers) = event else { Issue.record("\(String(describing: event))"); return }
        #expect(id == 11 && privateID == 99)
        #expect(publishers.map(\.id) == [21, 22, 23])
        #expect(publishers.map(\.hasAudio) == [true, false, false])
        #expect(publishers[0].display == "kiosk-b")
        #expect((publishers[1].display?.count ?? 0) == JanusProtocol.maxDisplay)
    }

    @Test("a new publisher, one that unpublishes, one that leaves or is kicked")
    func comingsAndGoings() {
        guard case let .publishers(list) = decode(["videoroom": "event", "publishers": [["id": 31, "display": "t", "audio_codec": "opus"]]]) else { Issue.record("publishers"); return }
        #expect(list.map(\.id) == [31] && list[0].hasAudio)
        guard case .unpublished(31) = decode(["videoroom": "event", "unpublished": 31]) else { Issue.record("unpublished"); return }
        guard case .leaving(31) = decode(["videoroom": "event", "leaving": 31]) else { Issue.record("leaving"); return }
        guard case .leaving(32) = decode(["videoroom": "event", "kicked": 32]) else { Issue.record("kicked"); return }
        // Our own unpublish and leave come as "ok": nobody's id.
        guard case .other = decode(["videoroom": "event", "unpublished": "ok"]) else { Issue.record("ok"); return }
    }

    @Test("the answer to our publish, a subscriber's offer (attached and updated), talking")
    func sessionDescriptions() {
        guard case .answer("v=0 a") = decode(["videoroom": "event", "configured": "ok"], jsep: ["type": "answer", "sdp": "v=0 a"]) else { Issue.record("answer"); return }
        guard case .offer("v=0 o") = decode(["videoroom": "attached", "room": 5555], jsep: ["type": "offer", "sdp": "v=0 o"]) else { Issue.record("attached"); return }
        guard case .offer("v=0 u") = decode(["videoroom": "updated"], jsep: ["type": "offer", "sdp": "v=0 u"]) else { Issue.record("updated"); return }
        guard case .other = decode(["videoroom": "attached"]) else { Issue.record("attached without an offer"); return }
        guard case .talking(21, true) = decode(["videoroom": "talking", "id": 21, "audio-level-dBov-avg": -30]) else { Issue.record("talking"); return }
        guard case .talking(21, false) = decode(["videoroom": "stopped-talking", "id": 21]) else { Issue.record("stopped"); return }
    }

    @Test("an error names its code and reason; a destroyed room removes us")
    func failures() {
        guard case let .failed(failure) = decode(["videoroom": "event", "error_code": 433, "error": "Unauthorized (wrong pin)"]) else { Issue.record("failed"); return }
        guard case let .videoRoom(code, reason) = failure else { Issue.record("\(failure)"); return }
        #expect(code == 433 && reason == "Unauthorized (wrong pin)")
        guard case .removed("the room was destroyed", 7) = JanusProtocol.videoRoomEvent(["videoroom": "destroyed"], jsep: nil, sender: 7, transaction: nil) else { Issue.record("destroyed"); return }
    }

    @Test("a classmate's input is rtc-room-<display> with only what an input id holds, or rtc-room-<id> when that is empty or taken")
    func inputIDs() {
        func participant(_ id: UInt64, _ display: String?) -> JanusRoom.Participant { .init(id: id, display: display, muted: false) }
        #expect(JanusSFURoom.inputID(for: participant(5, "kiosk-b"), besides: []) == "rtc-room-kiosk-b")
        #expect(JanusSFURoom.inputID(for: participant(5, "Ms Lee/2"), besides: []) == "rtc-room-Ms-Lee-2")
        #expect(JanusSFURoom.inputID(for: participant(5, "Élodie"), besides: []) == "rtc-room--lodie")
        #expect(JanusSFURoom.inputID(for: participant(5, "///"), besides: []) == "rtc-room-5")
        #expect(JanusSFURoom.inputID(for: participant(5, nil), besides: []) == "rtc-room-5")
        #expect(JanusSFURoom.inputID(for: participant(6, "kiosk-b"), besides: ["rtc-room-kiosk-b"]) == "rtc-room-6")
        #expect(JanusSFURoom.inputID(for: participant(7, String(repeating: "a", count: 100)), besides: []).count == "rtc-room-".count + 32)
    }
}
