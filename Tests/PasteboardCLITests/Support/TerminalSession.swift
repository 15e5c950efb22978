import Foundation
import PasteboardTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real terminal for a full-screen program: a tmux server of its own (its socket in the sandbox), one window of
/// a given size running a shell command, keys sent with `send-keys` and the screen read with `capture-pane`.
final class TerminalSession: Sendable {
    let tmux: String
    let socket: String
    let sandbox: Sandbox
    /// The tmux server's pid, stopped when the session goes.
    private let server = Mutex<Int32?>(nil)

    /// Starts `command` (run by `sh -c`, with the sandbox's environment) in a `columns`×`rows` window.
    init(_ command: String, sandbox: Sandbox, columns: Int = 80, rows: Int = 24, environment: [String: String] = [:]) async throws {
        guard let tmux = executableOnPath("tmux") else {
            throw SetupFailure("tmux is needed for the pb pick tests: apt-get install -y tmux")
        }
        self.tmux = tmux
        self.sandbox = sandbox
        socket = sandbox.root.appendingPathComponent("tmux-\(UUID().uuidString.prefix(8)).sock").path
        let variables = sandbox.environment.merging(environment) { $1 }.filter { $0.key != "PATH" }
            .map { "\($0.key)=\(Self.shellQuoted($0.value))" }.sorted().joined(separator: " ")
        // After the program: its status, and whether the terminal is back in canonical mode with echo.
        let modes = "$(stty -a | tr ' ;' '\\n\\n' | grep -E '^-?(icanon|echo)$' | tr '\\n' ' ')"
        // Exported, so that every program of a compound command gets them (`env … a && b` gave them to `a` alone, and
        // `b` read the real home's store).
        let exported = variables.isEmpty ? "" : "export \(variables); "
        let script = "\(exported)\(command); echo EXIT=$?; echo MODES: \(modes); sleep 120"
        try await run(["new-session", "-d", "-s", "t", "-x", String(columns), "-y", String(rows), script])
        let pid = try await run(["display-message", "-p", "-t", "t", "#{pid}"])
        server.withLock { $0 = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    deinit {
        // SIGTERM to the server closes its sessions: the shell and the program get SIGHUP and end. (A `kill-server`
        // client started here would be killed by its own ChildProcess's deinit before it ran, leaving the program
        // behind, waiting on its terminal forever.)
        if let pid = server.withLock({ $0 }) { kill(pid, SIGTERM) }
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Runs the tmux client with `arguments`; its output. (Through `ChildProcess`, which reaps its child itself:
    /// Foundation's `Process` never noticed the exit of a client whose server it had forked.)
    @discardableResult
    func run(_ arguments: [String]) async throws -> String {
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "TERM": "xterm-256color"]
        let client = try ChildProcess(
            executable: tmux, arguments: ["-S", socket] + arguments, environment: environment, stdin: nil,
            ioDirectory: sandbox.root.appendingPathComponent("io"))
        let result = try await client.finish(timeout: .seconds(20))
        guard result.succeeded else { throw SetupFailure("tmux \(arguments.first ?? ""): \(result)") }
        return result.output
    }

    /// Sends keys as tmux names them (`Enter`, `C-c`, `Escape`, `Down`) or literal text with `literal`.
    func send(_ keys: String..., literal: Bool = false) async throws {
        try await run(["send-keys", "-t", "t"] + (literal ? ["-l"] : []) + keys)
    }

    /// The screen as text, one string per row; with `escapes`, with its colour and attribute sequences.
    func screen(escapes: Bool = false) async throws -> [String] {
        try await run(["capture-pane", "-p", "-t", "t"] + (escapes ? ["-e"] : [])).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Waits until a row of the screen satisfies `condition`; returns the screen either way.
    @discardableResult
    func waitForScreen(within timeout: Duration = .seconds(10), _ condition: @escaping @Sendable ([String]) -> Bool) async throws -> [String] {
        var last: [String] = []
        let met = try await eventually(within: timeout, every: .milliseconds(30)) {
            last = try await self.screen()
            return condition(last)
        }
        #expect(met, "the screen never matched; it shows:\n\(last.joined(separator: "\n"))")
        return last
    }

    /// The pid of the program the shell runs (its only child).
    func programPID() async throws -> Int32? {
        let shell = try await run(["list-panes", "-t", "t", "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8) else { return nil }
        return children.split(separator: " ").first.flatMap { Int32($0) }
    }
}
