/// How a method call is answered: with its results, or with a D-Bus error.
public enum DBusReply: Sendable, Equatable {
    /// Success, with the method's out arguments (none for most MPRIS methods).
    case values([DBusValue])
    /// A D-Bus error: its name (`org.mpris.MediaPlayer2.Player.Error.Failed`) and a message for people.
    case error(name: String, message: String)

    /// Success without out arguments.
    public static let done = DBusReply.values([])
}
