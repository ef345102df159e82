/// One of the two independent user volumes (DESIGN §4, "media volume vs call volume").
public enum VolumeChannel: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The volume of media playback; may go down to 0.
    case media
    /// The volume while voice processing is on; never below its floor.
    case call

    /// The channel name as written in logs.
    public var description: String { rawValue }
}
