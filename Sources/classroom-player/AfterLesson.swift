import ArgumentParser

/// What a run does when its lesson ends: the command line's `exit` ends it (after the live feeds
/// with `--until-live-ends`); a service stays in class, where the room, the feeds and the
/// microphone go on; a lesson on a loop plays again from its start.
enum AfterLesson: String, CaseIterable, ExpressibleByArgument, Sendable {
    case exit, stay, loop
}
