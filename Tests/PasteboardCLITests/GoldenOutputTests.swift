import Foundation
import PasteboardTestSupport
import Testing

/// The whole text of every help page and completion script of the built `pb`, against the golden files in `Tests/Fixtures/Golden/`
/// (see `GoldenFile` for how to rewrite them after an intended change).
@Suite struct GoldenOutputTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// The command names `pb --help` lists, in its order.
    func listedCommands() async throws -> [String] {
        let overview = try await sandbox.succeed(["--help"])
        let lines = overview.outputLines.drop { $0 != "COMMANDS:" }.dropFirst().prefix { !$0.isEmpty }
        return lines.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// Runs pb and checks that it succeeded quietly, returning its standard output.
    func output(_ arguments: [String], as program: Sandbox.Program = .pb) async throws -> String {
        let result = try await sandbox.run(arguments, as: program)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        return result.output
    }

    @Test func overview() async throws {
        try GoldenFile(name: "help.txt").check(try await output(["--help"]))
    }

    @Test func helpOfEveryCommand() async throws {
        let commands = try await listedCommands()
        #expect(commands.count >= 20, "the overview lists \(commands)")
        for command in commands {
            try GoldenFile(name: "help-\(command).txt").check(try await output(["help", command]))
        }
        // A golden file for a command that no longer exists would be checked by nothing.
        let stale = try GoldenFile.names().filter { name in
            name.hasPrefix("help-") && !commands.contains(String(name.dropFirst("help-".count).dropLast(".txt".count)))
        }
        if GoldenFile.isUpdating {
            for name in stale { try FileManager.default.removeItem(at: GoldenFile(name: name).url) }
        } else {
            #expect(stale.isEmpty, "golden files for commands pb does not list: \(stale)")
        }
    }

    @Test(arguments: [Sandbox.Program.pbcopy, .pbpaste])
    func helpThroughAMacOSLink(program: Sandbox.Program) async throws {
        try GoldenFile(name: "\(program.rawValue)-help.txt").check(try await output(["--help"], as: program))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScript(shell: String) async throws {
        try GoldenFile(name: "completions-\(shell).txt").check(try await output(["completions", shell]))
    }

    /// The man pages the Debian package installs, as scripts/manpages.py makes them from the help text above (pb's)
    /// and from `pasteboard-gtk --help`: a change to a help page shows up in its man page too.
    @Test(arguments: ["pb", "pasteboard-gtk"])
    func manPage(page: String) async throws {
        let script = GoldenFile.directory.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/manpages.py").path
        let binary = page == "pb" ? ["--pb", try Product.pb.path()] : ["--app", try Product.pasteboardGTK.path()]
        let child = try ChildProcess(
            executable: "/usr/bin/python3", arguments: [script, "--print", page] + binary,
            environment: sandbox.environment, stdin: nil, ioDirectory: sandbox.root.appendingPathComponent("io"))
        let result = try await child.finish(timeout: .seconds(60))
        #expect(result.succeeded && result.stderr.isEmpty, "\(result)")
        try GoldenFile(name: "man-\(page).txt").check(result.output)
    }
}
