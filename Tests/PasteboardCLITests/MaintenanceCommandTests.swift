import Foundation
import PasteboardTestSupport
import Testing

/// `pb stats`, `pb prune` and `pb completions`.
@Suite struct MaintenanceCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    static let subcommands = [
        "copy", "paste", "history", "show", "search", "pin", "unpin", "delete", "clear", "restore", "decode",
        "import", "export", "stats", "prune", "completions", "daemon", "doctor",
    ]

    @Test func statsCountsItems() async throws {
        try await sandbox.copy("one")
        try await sandbox.copy("two")
        try await sandbox.copy(Payloads.png)
        let pinned = try #require(try await sandbox.history().last?.id)
        try await sandbox.succeed(["pin", String(pinned)])
        let result = try await sandbox.succeed(["stats"])
        #expect(result.outputLines.contains("items:        3 (1 pinned)"), "\(result)")
        #expect(result.outputLines.first == "store:        \(sandbox.storeDirectory.path)")

        let json = try await sandbox.succeed(["stats", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((object["items"] as? NSNumber)?.intValue == 3)
        #expect((object["pinned"] as? NSNumber)?.intValue == 1)
        #expect(object["store"] as? String == sandbox.storeDirectory.path)
        let kinds = try #require(object["kinds"] as? [String: [String: Any]])
        #expect((kinds["text"]?["count"] as? NSNumber)?.intValue == 2)
        #expect((kinds["image"]?["count"] as? NSNumber)?.intValue == 1)
    }

    @Test func statsOfAnEmptyStore() async throws {
        let json = try await sandbox.succeed(["stats", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((object["items"] as? NSNumber)?.intValue == 0)
    }

    @Test func pruneKeepsTheNewestAndThePinned() async throws {
        for text in ["pinned oldest", "old", "middle", "newer", "newest"] { try await sandbox.copy(text) }
        let oldest = try #require(try await sandbox.history().last?.id)
        try await sandbox.succeed(["pin", String(oldest)])
        let result = try await sandbox.succeed(["prune", "--max-items", "2"])
        #expect(result.outputLines == ["Deleted 2 items."], "\(result)")
        let left = try await sandbox.history()
        #expect(left.map(\.preview) == ["newest", "newer", "pinned oldest"])
        #expect(left.last?.isPinned == true)
        let bad = try await sandbox.run(["prune", "--max-items", "many"])
        #expect(bad.status == 64)
        #expect(bad.errorLines.first == "Error: --max-items needs a whole number, not 'many'.")
    }

    @Test func pruneWithoutLimitsUsesTheConfiguration() async throws {
        for text in ["a1", "a2", "a3", "a4"] { try await sandbox.copy(text) }
        try sandbox.writeConfig("# retention\nmax-items = 1\n")
        let result = try await sandbox.succeed(["prune"])
        #expect(result.outputLines == ["Deleted 3 items."], "\(result)")
        #expect(try await sandbox.history().map(\.preview) == ["a4"])
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionsNameEverySubcommand(shell: String) async throws {
        let result = try await sandbox.succeed(["completions", shell])
        #expect(result.stderr.isEmpty)
        for name in Self.subcommands {
            #expect(result.output.contains(name), "\(shell) completion lacks \(name)")
        }
        #expect(result.output.contains("keep-pinned"), "options are completed too")
        switch shell {
        case "bash": #expect(result.output.contains("complete -F _pb pb"))
        case "zsh": #expect(result.output.hasPrefix("#compdef pb"))
        default: #expect(result.output.contains("complete -c pb"))
        }
    }

    @Test func completionsForAnUnknownShellIsAUsageError() async throws {
        let result = try await sandbox.run(["completions", "tcsh"])
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("Error: Unknown shell 'tcsh'. Use bash, zsh or fish.") == true, "\(result)")
        #expect(result.errorLines.contains { $0.hasPrefix("Usage: pb completions") })
        #expect(result.stdout.isEmpty)
        let near = try await sandbox.run(["completions", "zhs"])
        #expect(near.status == 64)
        #expect(near.stderr.contains("Did you mean 'zsh'?"))
    }

    @Test func bashCompletionScriptIsValidBash() async throws {
        let result = try await sandbox.succeed(["completions", "bash"])
        let script = try sandbox.file("pb.bash", result.stdout)
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["-n", script.path]
        try bash.run()
        bash.waitUntilExit()
        #expect(bash.terminationStatus == 0)
    }
}
