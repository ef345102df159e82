import ArgumentParser

/// `--mic-on=yes|no` for a flag argument-parser knows only as `--mic-on` and `--no-mic-on`: a
/// service's ExecStart can only fill a setting into a word (`--mic-on=${MIC_ON}`), never leave
/// the flag out.
enum YesNoFlags {
    /// The flags that also take `=yes` or `=no`.
    static let names = ["mic-on", "mpris"]

    static let yes: Set = ["yes", "true", "on", "1"]
    static let no: Set = ["no", "false", "off", "0"]

    /// The arguments with each `--NAME=VALUE` of those flags as `--NAME` or `--no-NAME`; arguments
    /// after `--` are left as they are.
    static func normalized(_ arguments: [String]) throws(ValidationError) -> [String] {
        var result: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                result.append(argument)
                result += rest
                break
            }
            guard let name = names.first(where: { argument.hasPrefix("--\($0)=") }) else {
                result.append(argument)
                continue
            }
            let value = String(argument.dropFirst(name.count + 3))
            if yes.contains(value.lowercased()) {
                result.append("--\(name)")
            } else if no.contains(value.lowercased()) {
                result.append("--no-\(name)")
            } else {
                throw ValidationError("--\(name) takes yes or no, not '\(value)'")
            }
        }
        return result
    }
}
