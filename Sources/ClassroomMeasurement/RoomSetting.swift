import Foundation

/// A room for the room rig (`scripts/room/room.py`): its response and levels, and who talks in it.
/// The suite's room is the one every room test and row uses; the second differs in each of those,
/// so that a canceller tuned to the first is also judged somewhere else.
public struct RoomSetting: Sendable {
    /// How the room is named in a row.
    public let name: String
    /// What the room is, in words, for a row's method.
    public let description: String
    /// room.py's options for it, added to the run's own.
    public let options: [String]
    /// The teacher's speech, a WAV file (written on first use).
    public let teacher: @Sendable () throws -> String
    /// The student's speech in double talk, a 16-bit 48 kHz mono WAV (written on first use).
    public let student: @Sendable () throws -> String

    /// room.py's defaults: 7×6×3 m, the microphone 35 cm from the speaker, RT60 0.4 s, the direct
    /// path at −6 dB, −65 dBFS of noise; espeak-ng's en-us teacher, an en-us+f3 student.
    public static let suite = RoomSetting(
        name: "the suite's room",
        description: "7×6×3 m, microphone 35 cm from the speaker, RT60 0.4 s, direct path −6 dB, noise −65 dBFS; teacher en-us, student en-us+f3 at espeak-ng's level",
        options: [], teacher: { try SpeechSample.farEnd() }, student: { try SpeechSample.nearEnd() })

    /// A larger and livelier room with a louder echo and a quieter child, other voices and other
    /// words. Its noise stays the suite's: ERLE counts whatever is left on the uplink, noise too,
    /// and noise suppression is judged in a row of its own.
    public static let second = RoomSetting(
        name: "second room",
        description: "9×8×3.5 m, microphone 80 cm from the speaker, RT60 0.7 s, direct path −2 dB, noise −65 dBFS; "
            + "teacher en-gb+m3 at 165 words a minute, student en-us+f4 at −32 dBFS active speech level",
        options: ["--room-size", "9,8,3.5", "--distance", "0.8", "--rt60", "0.7", "--echo-gain-db", "-2",
                  "--seed", "2", "--near-dbfs", "-32"],
        teacher: {
            try SpeechSample.speech(secondTeacherText, voice: "en-gb+m3", wordsPerMinute: 165, name: "second-room-teacher")
        },
        student: {
            try SpeechSample.speech(secondStudentText, voice: "en-us+f4", wordsPerMinute: 140, name: "second-room-student")
        })

    /// What the second room's teacher says (about 13 s).
    static let secondTeacherText = "Right, class, open your atlas at page twelve. This map shows the rivers of the north. "
        + "Find the longest one and trace it with your finger from the mountains to the sea. Then write its name in your notebook."
    /// What the second room's student says while the teacher talks (about 4 s).
    static let secondStudentText = "Sorry, which page did you say? I cannot find the map."
}
