import ArgumentParsing

/// One `pb` subcommand: its declared shape and what it does.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    static func run(_ arguments: ParsedArguments, in context: Context) throws
}

extension Command {
    static var name: String { spec.name }
}

/// Parses item ids given on the command line.
enum ItemIDs {
    static func parse(_ text: String) throws -> Int64 {
        guard let id = Int64(text.trimmingCharacters(in: .whitespaces)), id > 0 else {
            throw CommandUsageError("'\(text)' is not an item id (ids are the numbers 'pb history' shows).")
        }
        return id
    }
}
