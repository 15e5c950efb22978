import ArgumentParsing
import Testing
import TextSupport

@Suite struct ArgumentParserTests {
    let spec = CommandSpec(
        name: "history", abstract: "List items.",
        options: [
            .init("limit", short: "n", value: "N", help: "How many."),
            .init("json", help: "JSON output."),
        ],
        positionals: [.init("QUERY", help: "What to find.", optional: true)])

    @Test(arguments: [
        (["--limit", "5"], "5"), (["--limit=7"], "7"), (["-n", "3"], "3"), (["-n9"], "9"),
    ])
    func optionValuesInEveryForm(arguments: [String], expected: String) throws {
        #expect(try ArgumentParser.parse(arguments, as: spec).value("limit") == expected)
    }

    @Test func flagsAndPositionalsMix() throws {
        let parsed = try ArgumentParser.parse(["foo", "--json"], as: spec)
        #expect(parsed.flag("json"))
        #expect(parsed.positionals == ["foo"])
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ArgumentParser.parse(["--", "--json"], as: spec)
        #expect(!parsed.flag("json"))
        #expect(parsed.positionals == ["--json"])
    }

    @Test func unknownOptionSuggestsNearMiss() {
        #expect(throws: UsageError("Unknown option '--jsn'. Did you mean '--json'?")) {
            try ArgumentParser.parse(["--jsn"], as: spec)
        }
    }

    @Test func missingValueIsAnError() {
        #expect(throws: UsageError.self) { try ArgumentParser.parse(["--limit"], as: spec) }
    }

    @Test func extraPositionalIsAnError() {
        #expect(throws: UsageError("Unexpected argument 'b'.")) { try ArgumentParser.parse(["a", "b"], as: spec) }
    }

    @Test func positiveIntegerRejectsGarbage() throws {
        let parsed = try ArgumentParser.parse(["--limit", "ten"], as: spec)
        #expect(throws: UsageError.self) { try parsed.positiveInteger("limit") }
    }

    @Test(arguments: [("histroy", "history"), ("serach", "search"), ("cpy", "copy"), ("paste", "paste")])
    func suggestionsFindTypos(input: String, expected: String) {
        #expect(Suggestion.nearest(to: input, among: ["history", "search", "copy", "paste", "pin"]) == expected)
    }

    @Test func noSuggestionForUnrelatedWords() {
        #expect(Suggestion.nearest(to: "zebra", among: ["history", "search", "copy"]) == nil)
    }

    @Test func helpListsOptionsAndUsage() {
        let help = spec.help(program: "pb")
        #expect(help.contains("USAGE: pb history [--limit N] [--json] [QUERY]"))
        #expect(help.contains("-n, --limit N"))
    }
}
