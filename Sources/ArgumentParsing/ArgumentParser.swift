public import TextSupport

/// A command line that does not fit its command's declared shape.
public struct UsageError: ActionableError, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The parsed values of one command line.
public struct ParsedArguments: Sendable, Equatable {
    public private(set) var flags: Set<String> = []
    public private(set) var values: [String: [String]] = [:]
    public private(set) var positionals: [String] = []

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    /// The last value given for `--name`.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// The value of `--name` as a positive integer, or a usage error saying what was wrong.
    public func positiveInteger(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), number > 0 else {
            throw UsageError("--\(name) needs a positive whole number, not \(quoted(text)).")
        }
        return number
    }

    mutating func setFlag(_ name: String) { flags.insert(name) }
    mutating func addValue(_ value: String, for name: String) { values[name, default: []].append(value) }
    mutating func addPositional(_ value: String) { positionals.append(value) }
}

/// Parses arguments against a `CommandSpec`: `--long`, `--long=value`, `--long value`, `-s`, `-s value`,
/// `--` to end options, and a lone `-` as a positional (standard input).
public enum ArgumentParser {
    public static func parse(_ arguments: [String], as spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.addPositional(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let option: CommandSpec.Option
            var inlineValue: String?
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let match = spec.options.first(where: { $0.long == name }) else {
                    var message = "Unknown option '--\(name)'."
                    if let near = Suggestion.nearest(to: name, among: spec.options.map(\.long)) {
                        message += " Did you mean '--\(near)'?"
                    }
                    throw UsageError(message)
                }
                option = match
            } else {
                let letters = Array(argument.dropFirst())
                guard let first = letters.first, let match = spec.options.first(where: { $0.short == first }) else {
                    if Double(argument) != nil {
                        parsed.addPositional(argument)  // a negative number is a value, not an option
                        continue
                    }
                    throw UsageError("Unknown option \(quoted(argument)).")
                }
                if letters.count > 1 {
                    guard match.takesValue else { throw UsageError("Unknown option \(quoted(argument)).") }
                    inlineValue = String(letters.dropFirst())
                }
                option = match
            }
            if option.takesValue {
                if let inlineValue {
                    parsed.addValue(inlineValue, for: option.long)
                } else if index < arguments.count {
                    parsed.addValue(arguments[index], for: option.long)
                    index += 1
                } else {
                    throw UsageError("Option '--\(option.long)' needs a value (\(option.valueName ?? "VALUE")).")
                }
            } else {
                if inlineValue != nil { throw UsageError("Option '--\(option.long)' takes no value.") }
                parsed.setFlag(option.long)
            }
        }
        if parsed.flag("help") { return parsed }
        let required = spec.positionals.filter { !$0.isOptional }
        if parsed.positionals.count < required.count {
            let missing = required[parsed.positionals.count]
            throw UsageError("Missing argument \(missing.name).")
        }
        let repeating = spec.positionals.contains { $0.isRepeating }
        if !repeating && parsed.positionals.count > spec.positionals.count {
            throw UsageError("Unexpected argument \(quoted(parsed.positionals[spec.positionals.count])).")
        }
        return parsed
    }
}
