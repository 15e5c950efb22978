import Foundation
import Testing

/// Help, version and usage errors: what goes to which stream, and the exit status.
@Suite struct UsageTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func unknownSubcommandSuggestsTheNearestOne() async throws {
        let result = try await sandbox.run(["histroy"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLines == [
            "Error: Unknown command 'histroy'. Did you mean 'history'?",
            "Usage: pb <command> [options]",
            "  See 'pb --help'.",
        ])
    }

    @Test func unrelatedSubcommandHasNoSuggestion() async throws {
        let result = try await sandbox.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.errorLines.first == "Error: Unknown command 'frobnicate'.")
        #expect(result.errorLines.contains("Usage: pb <command> [options]"))
    }

    @Test func unknownOptionSuggestsTheNearestOne() async throws {
        let result = try await sandbox.run(["history", "--jsn"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLines.count == 3, "\(result)")
        #expect(result.errorLines.first == "Error: Unknown option '--jsn'. Did you mean '--json'?")
        #expect(result.errorLines.dropFirst().first?.hasPrefix("Usage: pb history [--limit N]") == true)
        #expect(result.errorLines.last == "  See 'pb history --help'.")
    }

    @Test(arguments: [
        (["copy", "a", "b"], "Error: Unexpected argument 'b'."),
        (["show"], "Error: Missing argument ID."),
        (["history", "--limit"], "Error: Option '--limit' needs a value (N)."),
        (["history", "--json=yes"], "Error: Option '--json' takes no value."),
        (["paste", "-x"], "Error: Unknown option '-x'."),
    ])
    func malformedCommandLinesExit64(arguments: [String], message: String) async throws {
        let result = try await sandbox.run(arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.first == message)
        #expect(result.errorLines.contains { $0.hasPrefix("Usage: pb \(arguments[0])") })
    }

    @Test(arguments: [["--help"], ["-h"], []])
    func overviewGoesToStandardOutput(arguments: [String]) async throws {
        let result = try await sandbox.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        try GoldenFile(name: "help.txt").check(result.output)
        for name in MaintenanceCommandTests.subcommands {
            #expect(result.outputLines.contains { $0.hasPrefix("  \(name) ") }, "overview lacks \(name)")
        }
    }

    @Test(arguments: [["--version"], ["-V"]])
    func versionGoesToStandardOutput(arguments: [String]) async throws {
        let result = try await sandbox.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.output == "pb 0.1.0\n")
    }

    @Test func helpForACommand() async throws {
        let viaHelp = try await sandbox.run(["help", "copy"])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stderr.isEmpty)
        try GoldenFile(name: "help-copy.txt").check(viaHelp.output)
        let viaFlag = try await sandbox.run(["copy", "--help"])
        #expect(viaFlag.status == 0)
        #expect(viaFlag.stdout == viaHelp.stdout)
        let short = try await sandbox.run(["history", "-h"])
        #expect(short.status == 0)
        #expect(short.output.contains("A '*' after the id marks a pinned item."))
    }

    @Test func helpForAnUnknownCommand() async throws {
        let result = try await sandbox.run(["help", "cpoy"])
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("Error: Unknown command 'cpoy'.") == true)
        #expect(result.errorLines.contains("Usage: pb help <command>"))
    }

    @Test func helpDoesNotTouchTheStore() async throws {
        let result = try await sandbox.run(["history", "--help"])
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.databaseURL.path))
    }
}
