import ArgumentParsing
import TextSupport

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
        guard let id = Int64(text.trimmingWhitespace()), id > 0 else {
            throw CommandUsageError("\(quoted(text)) is not an item id (ids are the numbers 'pb history' shows).")
        }
        return id
    }

    /// `ids` without repeats, in the order given: `pb delete 2 2` deletes one item.
    static func unique(_ ids: [Int64]) -> [Int64] {
        var seen = Set<Int64>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// "3", "3 and 5", "3, 5 and 8": what a command did, exactly.
    static func list(_ ids: [Int64]) -> String {
        let names = ids.map(String.init)
        guard names.count > 1 else { return names.first ?? "nothing" }
        return names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}
