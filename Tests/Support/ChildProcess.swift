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
    /// Reaps the process on a thread of its own, so that noticing an exit never waits for a turn on Swift's
    /// cooperative pool (two threads on a two-core machine, shared by every test running in parallel).
    private let reaper: Reaper

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
        reaper = Reaper(pid: child)
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
        if reaper.termination == nil {
            Glibc.kill(pid, SIGKILL)
            _ = reaper.wait(timeout: .seconds(10))
        }
    }

    // MARK: - State

    /// How the process ended, or nil while it runs.
    public var termination: Termination? { reaper.termination }

    /// When the process was seen to exit, by a thread that waits for nothing else: the moment to measure a
    /// shutdown against, however late the test itself gets to run again.
    public var exitedAt: ContinuousClock.Instant? { reaper.exitedAt }

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
        reaper.signal(signal)
    }

    /// Waits until the process exits; nil if it still runs after `timeout`. The wait is resumed by the reaper
    /// thread or by a Dispatch timer, so it holds no thread of the cooperative pool.
    public func waitForExit(timeout: Duration) async throws -> Termination? {
        await reaper.exit(timeout: timeout)
    }

    /// Waits for the exit and returns the result; kills the process and throws `ProcessTimeout` after `timeout`.
    public func finish(timeout: Duration) async throws -> ProcessResult {
        if try await waitForExit(timeout: timeout) == nil {
            terminate(grace: .seconds(1))
            throw ProcessTimeout(command: command, timeout: timeout, stderr: stderr)
        }
        return result!  // exited: waitForExit returned a termination
    }

    /// Blocks until the process exits or `timeout` passes; true when it has exited. For synchronous set-up code
    /// (compiling a helper program); an async test uses `waitForExit`.
    public func waitBlocking(timeout: Duration) -> Bool {
        reaper.wait(timeout: timeout) != nil
    }

    /// Stops the process: SIGTERM, then SIGKILL after `grace`. Blocks only until the exit is seen.
    public func terminate(grace: Duration) {
        send(SIGTERM)
        if reaper.wait(timeout: grace) == nil {
            send(SIGKILL)
            _ = reaper.wait(timeout: .seconds(30))
        }
    }
}

/// Waits for one child on a dedicated thread (`waitid` without reaping, then `waitpid` under the lock, so a
/// signal is never sent to a pid that was already reaped and reused), and wakes everyone waiting for it.
private final class Reaper: Sendable {
    private struct State {
        var termination: ChildProcess.Termination?
        var exitedAt: ContinuousClock.Instant?
        var waiters: [UInt64: CheckedContinuation<ChildProcess.Termination?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let pid: pid_t
    private let state = Mutex(State())
    private let exited = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        self.pid = pid
        let thread = Thread { [self] in watch() }
        thread.name = "reaper \(pid)"
        thread.stackSize = 64 * 1024
        thread.start()
    }

    var termination: ChildProcess.Termination? { state.withLock { $0.termination } }
    var exitedAt: ContinuousClock.Instant? { state.withLock { $0.exitedAt } }

    func signal(_ number: Int32) {
        state.withLock { state in
            if state.termination == nil { Glibc.kill(pid, number) }
        }
    }

    /// Blocks up to `timeout` for the exit.
    func wait(timeout: Duration) -> ChildProcess.Termination? {
        if let done = termination { return done }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        if exited.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success {
            exited.signal()  // leave it signalled for the next waiter
        }
        return termination
    }

    /// Suspends up to `timeout` for the exit.
    func exit(timeout: Duration) async -> ChildProcess.Termination? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ChildProcess.Termination?, Never>) in
            let id: UInt64? = state.withLock { state in
                if state.termination != nil { return nil }
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.waiters[id] = continuation
                return id
            }
            guard let id else {
                continuation.resume(returning: termination)
                return
            }
            let nanoseconds =
                timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume(returning: nil)
            }
        }
    }

    private func watch() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let waiters = state.withLock { state in
            var status: Int32 = 0
            if waitpid(pid, &status, 0) == pid {
                // <sys/wait.h>'s macros are not imported: the low 7 bits are the signal, the next byte the status.
                let signal = status & 0x7F
                state.termination =
                    signal == 0
                    ? ChildProcess.Termination(status: (status >> 8) & 0xFF, wasSignalled: false)
                    : ChildProcess.Termination(status: signal, wasSignalled: true)
            } else {
                // Reaped elsewhere (it should not be): report it as gone rather than running for ever.
                state.termination = ChildProcess.Termination(status: -1, wasSignalled: false)
            }
            state.exitedAt = .now
            let waiters = state.waiters
            state.waiters = [:]
            return waiters
        }
        exited.signal()
        for waiter in waiters.values { waiter.resume(returning: state.withLock { $0.termination }) }
    }
}
