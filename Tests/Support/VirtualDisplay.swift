public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private `Xvfb` server: a free display number in 90…199, no TCP.
///
/// A display for child processes only is torn down with its test: its clients (a forked `xclip`, a `pb __serve`)
/// lose their connection and exit. A display this test process itself connects to must outlive the process
/// instead (see `Lifetime.testProcess`). A missing Xvfb fails the test with a `SetupFailure`, never skips it.
///
/// ```swift
/// let display = try await VirtualDisplay(ioDirectory: io, requiredBy: "the X11 integration tests")
/// environment["DISPLAY"] = display.name
/// ```
public final class VirtualDisplay: Sendable {
    /// How long the server runs.
    public enum Lifetime: Sendable {
        /// Until the `VirtualDisplay` goes away.
        case test
        /// Until this test process exits. A `SystemPasteboardServer` keeps its X connection for the life of the
        /// process, and Xlib's default I/O error handler calls `exit` when that connection breaks: stopping the
        /// server under it would kill the whole test run. A small shell stays behind with the server and stops it
        /// once this process is gone.
        case testProcess
    }

    /// `:N`.
    public let name: String
    public let number: Int
    public let lifetime: Lifetime
    private let server: ChildProcess

    /// Display numbers this test process has handed out and not yet given back.
    private static let claimed = Mutex<Set<Int>>([])
    /// The watchdog shells of `.testProcess` displays: never released, so never killed by `ChildProcess.deinit`.
    private static let outliving = Mutex<[ChildProcess]>([])

    /// Starts Xvfb and waits until it accepts connections.
    ///
    /// - Parameters:
    ///   - ioDirectory: Where the server's output files go.
    ///   - lifetime: How long the server runs.
    ///   - tests: Who needs the display, for the message when Xvfb is missing
    ///     ("the X11 integration tests").
    ///   - screen: The screen's size and depth, `WIDTHxHEIGHTxDEPTH` (windows of an app need more than the default).
    /// - Throws: `SetupFailure` when Xvfb is not installed or no server would start.
    public init(
        ioDirectory: URL, lifetime: Lifetime = .test, requiredBy tests: String, screen: String = "320x240x24"
    ) async throws {
        guard let xvfb = executableOnPath("Xvfb") else {
            let required =
                ProcessInfo.processInfo.environment["PB_REQUIRE_DISPLAY"] == "1" ? " (PB_REQUIRE_DISPLAY=1)" : ""
            throw SetupFailure(
                "Xvfb is not installed, so \(tests) cannot run\(required). "
                    + "Install it with 'apt-get install -y xvfb xclip xsel'.")
        }
        let range = 90...199
        // Start where another process is unlikely to look, and skip numbers in use (socket or lock file).
        var candidate = range.lowerBound + Int(getpid()) % range.count
        var failures: [String] = []
        for _ in 0..<range.count {
            candidate = candidate + 1 > range.upperBound ? range.lowerBound : candidate + 1
            let number = candidate
            guard Self.isFree(number), Self.claimed.withLock({ $0.insert(number).inserted }) else { continue }
            let serverArguments = [":\(number)", "-nolisten", "tcp", "-noreset", "-screen", "0", screen]
            let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
            let process: ChildProcess
            switch lifetime {
            case .test:
                process = try ChildProcess(
                    executable: xvfb, arguments: serverArguments, environment: environment, stdin: nil,
                    ioDirectory: ioDirectory)
            case .testProcess:
                // The shell exits (stopping Xvfb) when this process is gone, or when Xvfb exits by itself.
                let script = """
                    "$0" "$@" & server=$!
                    trap 'kill $server 2>/dev/null; exit 0' TERM INT
                    while kill -0 \(getpid()) 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 0.2; done
                    kill $server 2>/dev/null
                    wait $server
                    """
                process = try ChildProcess(
                    executable: "/bin/sh", arguments: ["-c", script, xvfb] + serverArguments, environment: environment,
                    stdin: nil, ioDirectory: ioDirectory)
            }
            if try await Self.waitUntilAccepting(number, server: process) {
                self.number = number
                self.lifetime = lifetime
                name = ":\(number)"
                server = process
                if lifetime == .testProcess { Self.outliving.withLock { $0.append(process) } }
                return
            }
            // Another server won the race for this number, or Xvfb failed: try the next one.
            process.terminate(grace: .seconds(1))
            failures.append(":\(number): \(process.stderr.suffix(300))")
            _ = Self.claimed.withLock { $0.remove(number) }
            if failures.count >= 5 { break }
        }
        throw SetupFailure("Could not start Xvfb on any display in \(range): \(failures.joined(separator: "; "))")
    }

    deinit {
        // A `.testProcess` display is stopped by its shell once this process has exited.
        guard lifetime == .test else { return }
        server.terminate(grace: .seconds(3))
        // Xvfb removes its socket and lock on SIGTERM; after a SIGKILL they would stay and block the number.
        if server.termination?.wasSignalled == true && server.termination?.status == SIGKILL {
            unlink("/tmp/.X11-unix/X\(number)")
            unlink("/tmp/.X\(number)-lock")
        }
        _ = Self.claimed.withLock { $0.remove(number) }
    }

    /// Xvfb's own diagnostics.
    public var log: String { server.stderr }

    private static func isFree(_ number: Int) -> Bool {
        access("/tmp/.X11-unix/X\(number)", F_OK) != 0 && access("/tmp/.X\(number)-lock", F_OK) != 0
    }

    /// Waits (at most 10 s) until the server's socket accepts a connection; false when the server exited.
    private static func waitUntilAccepting(_ number: Int, server: ChildProcess) async throws -> Bool {
        let accepting = try await eventually(within: .seconds(10), every: .milliseconds(10)) {
            if !server.isRunning { return true }
            return RawControlSocket.canConnect(to: "/tmp/.X11-unix/X\(number)")
        }
        return accepting && server.isRunning
    }
}
