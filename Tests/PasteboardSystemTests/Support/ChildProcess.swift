import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How a child process ended, and what it wrote.
struct ProcessResult: Sendable, CustomStringConvertible {
    let command: String
    /// The exit status, or the signal number when `wasSignalled`.
    let status: Int32
    let wasSignalled: Bool
    let stdout: Data
    let stderr: String

    var succeeded: Bool { !wasSignalled && status == 0 }
    /// Standard output decoded as UTF-8 (lossily).
    var output: String { String(decoding: stdout, as: UTF8.self) }

    var description: String {
        "\(command): exit \(wasSignalled ? "by signal " : "")\(status), stdout \(stdout.count) bytes "
            + "\(output.prefix(300).debugDescription), stderr \(stderr.suffix(2000).debugDescription)"
    }
}

/// A child process did not finish in time; it was killed.
struct ProcessTimeout: Error, CustomStringConvertible {
    let command: String
    let timeout: Duration
    let stderr: String
    var description: String {
        "\(command) ran longer than \(timeout) and was killed; stderr: \(stderr.suffix(2000).debugDescription)"
    }
}

/// A process started with `posix_spawn`: standard input from a file (or /dev/null), standard output and error
/// into files, so no amount of output can block it; signals reset to their defaults and unblocked.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, and the test runner's threads block
/// SIGTERM: an Xvfb started that way could not be stopped cleanly. Spawning directly avoids that.
/// A process still running when its `ChildProcess` goes away is killed, so a failing test leaves nothing behind.
final class ChildProcess: Sendable {
    struct Termination: Sendable, Equatable {
        /// The exit status, or the signal number when `wasSignalled`.
        let status: Int32
        let wasSignalled: Bool
    }

    let pid: pid_t
    let command: String
    let stdoutURL: URL
    let stderrURL: URL
    private let reaped = Mutex<Termination?>(nil)

    /// Starts `executable` with `arguments` (without argv[0]) and exactly `environment`.
    init(executable: String, arguments: [String], environment: [String: String], stdin: URL?, ioDirectory: URL) throws {
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
    var termination: Termination? {
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

    var isRunning: Bool { termination == nil }

    /// Standard output so far.
    var stdout: Data { (try? Data(contentsOf: stdoutURL)) ?? Data() }

    /// Standard error so far.
    var stderr: String { String(decoding: (try? Data(contentsOf: stderrURL)) ?? Data(), as: UTF8.self) }

    /// The result, once the process has exited.
    var result: ProcessResult? {
        guard let exit = termination else { return nil }
        return ProcessResult(
            command: command, status: exit.status, wasSignalled: exit.wasSignalled, stdout: stdout, stderr: stderr)
    }

    // MARK: - Control

    /// Sends `signal` to this process, unless it has already been reaped (its pid may then be reused).
    func send(_ signal: Int32) {
        reaped.withLock { cached in
            if cached == nil { Glibc.kill(pid, signal) }
        }
    }

    /// Waits until the process exits; nil if it still runs after `timeout`.
    func waitForExit(timeout: Duration) async throws -> Termination? {
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
    func finish(timeout: Duration) async throws -> ProcessResult {
        if try await waitForExit(timeout: timeout) == nil {
            terminate(grace: .seconds(1))
            throw ProcessTimeout(command: command, timeout: timeout, stderr: stderr)
        }
        return result!  // exited: waitForExit returned a termination
    }

    /// Stops the process: SIGTERM, then SIGKILL after `grace`. Blocks, briefly.
    func terminate(grace: Duration) {
        send(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        if isRunning {
            send(SIGKILL)
            while isRunning { usleep(2_000) }
        }
    }
}

/// Something the tests need could not be set up (a missing tool, a server that would not start).
struct SetupFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(
    within timeout: Duration, every pause: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
        if try await condition() { return true }
        if clock.now >= deadline { return false }
        try await Task.sleep(for: pause)
    }
}

/// The executable named `name` on `PATH`, or nil.
func executableOnPath(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
    let directories = (path ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin", "/usr/local/bin"]
    for directory in directories {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}
