/// The declared shape of one command: its options and positional arguments, and its help.
public struct CommandSpec: Sendable {
    /// One `--long`/`-s` option.
    public struct Option: Sendable {
        public let long: String
        public let short: Character?
        /// Placeholder for the value in help (`N`, `TYPE`); nil for a flag that takes no value.
        public let valueName: String?
        public let help: String

        public init(_ long: String, short: Character? = nil, value valueName: String? = nil, help: String) {
            self.long = long
            self.short = short
            self.valueName = valueName
            self.help = help
        }

        public var takesValue: Bool { valueName != nil }
    }

    /// One positional argument.
    public struct Positional: Sendable {
        public let name: String
        public let help: String
        public let isOptional: Bool
        public let isRepeating: Bool

        public init(_ name: String, help: String, optional: Bool = false, repeating: Bool = false) {
            self.name = name
            self.help = help
            self.isOptional = optional
            self.isRepeating = repeating
        }
    }

    public let name: String
    public let abstract: String
    public let options: [Option]
    public let positionals: [Positional]
    public let discussion: String?

    public init(name: String, abstract: String, options: [Option] = [], positionals: [Positional] = [], discussion: String? = nil) {
        self.name = name
        self.abstract = abstract
        self.options = options + [Option("help", short: "h", help: "Show help for this command.")]
        self.positionals = positionals
        self.discussion = discussion
    }

    /// The one-line usage, e.g. `pb history [--limit N] [--json]`.
    public func usage(program: String) -> String {
        var parts = [name.isEmpty ? program : "\(program) \(name)"]
        for option in options where option.long != "help" {
            parts.append(option.takesValue ? "[--\(option.long) \(option.valueName!)]" : "[--\(option.long)]")
        }
        for positional in positionals {
            var text = positional.name
            if positional.isRepeating { text += " ..." }
            parts.append(positional.isOptional ? "[\(text)]" : text)
        }
        return parts.joined(separator: " ")
    }

    /// The full help text.
    public func help(program: String) -> String {
        var lines = ["OVERVIEW: \(abstract)", "", "USAGE: \(usage(program: program))"]
        if !positionals.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for positional in positionals { lines.append(Self.row(positional.name, positional.help)) }
        }
        lines += ["", "OPTIONS:"]
        for option in options {
            var left = option.short.map { "-\($0), " } ?? ""
            left += "--\(option.long)"
            if let value = option.valueName { left += " \(value)" }
            lines.append(Self.row(left, option.help))
        }
        if let discussion { lines += ["", discussion] }
        return lines.joined(separator: "\n") + "\n"
    }

    static func row(_ left: String, _ right: String) -> String {
        let padded = left.count < 24 ? left + String(repeating: " ", count: 24 - left.count) : left + "  "
        return "  " + padded + right
    }
}
