public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A process started with `posix_spawn`: standard input from a file (or /dev/null), standard output and error
/// into files, so no amount of output can block it; signals reset to their defaults and unblocked.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, and the test runner's threads block
/// SIGTERM: an Xvfb started that way could not be stopped cleanly. Spawning directly avoids that.
/// A process still running when its `ChildProcess` goes away is killed, so a failing test leaves nothing behind.
///
/// ```swift
/// let child = try ChildProcess(
///     executable: "/usr/bin/xclip", arguments: ["-selection", "clipboard", "-o"],
///     environment: ["DISPLAY": display.name], stdin: nil, ioDirectory: io)
/// let result = try await child.finish(timeout: .seconds(10))
/// ```
public final class ChildProcess: Sendable {
    /// How a process ended.
    public struct Termination: Sendable, Equatable {
        /// The exit status, or the signal number when `wasSignalled`.
        public let status: Int32
        public let wasSignalled: Bool

        public init(status: Int32, wasSignalled: Bool) {
            self.status = status
            self.wasSignalled = wasSignalled
        }
    }

    public let pid: pid_t
    /// The executable's file name and the arguments, for messages.
    public let command: String
    /// The file standard output goes to; it grows while the process runs.
    public let stdoutURL: URL
    /// The file standard error goes to.
    public let stderrURL: URL
    private let reaped = Mutex<Termination?>(nil)

    /// Starts `executable` with `arguments` (without argv[0]) and exactly `environment`; its output files are
    /// created in `ioDirectory`.
    public init(
        executable: String, arguments: [String], environment: [String: String], stdin: URL?, ioDirectory: URL
    ) throws {
        let stem = ioDirectory.appendingPathComponent(UUID().uuidString).path
        stdoutURL = URL(fileURLWithPath: stem + ".out")
        stderrURL = URL(fileURLWithPath: stem + ".err")
        command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin?.path ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Descriptors the test runner holds (sockets, pipes) must not leak into Xvfb, xclip or pb.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, number)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SetupFailure("Cannot start \(executable): \(String(cString: strerror(status))).")
        }
        pid = child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift's Glibc module does not import.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            // unsafeBitCast: the symbol is glibc's C function
            // `int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int)`, exactly this type.
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
        }()

    deinit {
        if reaped.withLock({ $0 }) == nil {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
    }

    // MARK: - State

    /// How the process ended, or nil while it runs. Reaps it the first time it is seen to have exited.
    public var termination: Termination? {
        reaped.withLock { cached in
            if let cached { return cached }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            // <sys/wait.h>'s macros are not imported: the low 7 bits are the signal, the next byte the status.
            let signal = status & 0x7F
            cached =
                signal == 0
                ? Termination(status: (status >> 8) & 0xFF, wasSignalled: false)
                : Termination(status: signal, wasSignalled: true)
            return cached
        }
    }

    /// True until the process has exited.
    public var isRunning: Bool { termination == nil }

    /// Standard output so far.
    public var stdout: Data { (try? Data(contentsOf: stdoutURL)) ?? Data() }

    /// Standard error so far.
    public var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }

    /// The result, once the process has exited.
    public var result: ProcessResult? {
        guard let exit = termination else { return nil }
        return ProcessResult(
            command: command, status: exit.status, wasSignalled: exit.wasSignalled, stdout: stdout, stderr: stderr)
    }

    // MARK: - Control

    /// Sends `signal` to this process, unless it has already been reaped (its pid may then be reused).
    public func send(_ signal: Int32) {
        reaped.withLock { cached in
            if cached == nil { Glibc.kill(pid, signal) }
        }
    }

    /// Waits until the process exits; nil if it still runs after `timeout`.
    public func waitForExit(timeout: Duration) async throws -> Termination? {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(2)
        while true {
            if let exit = termination { return exit }
            if clock.now >= deadline { return nil }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// Waits for the exit and returns the result; kills the process and throws `ProcessTimeout` after `timeout`.
    public func finish(timeout: Duration) async throws -> ProcessResult {
        if try await waitForExit(timeout: timeout) == nil {
            terminate(grace: .seconds(1))
            throw ProcessTimeout(command: command, timeout: timeout, stderr: stderr)
        }
        return result!  // exited: waitForExit returned a termination
    }

    /// Stops the process: SIGTERM, then SIGKILL after `grace`. Blocks, briefly.
    public func terminate(grace: Duration) {
        send(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        if isRunning {
            send(SIGKILL)
            while isRunning { usleep(2_000) }
        }
    }
}
