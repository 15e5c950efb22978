import CSystemShim
public import FoundationEssentials
public import SystemSupport
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

/// A process started in a session of its own, so that it outlives the command that started it and the shell's job
/// control: the short-lived clipboard owner, the process that types a deferred paste, the resident popup. The one
/// place that spawns them.
public enum DetachedProcess {
    /// What the process reads on its standard input.
    public enum Input: Sendable {
        /// /dev/null.
        case nothing
        /// These bytes, written through a pipe before waiting for `ready`; the pipe is then closed.
        case bytes(Data)
        /// The terminal on the first of this process's standard descriptors that is one, else /dev/null.
        case terminal
    }

    /// Why a detached process did not start (or did not say it was ready).
    public struct Failure: Error, Sendable {
        public enum Reason: Sendable {
            /// A pipe to or from it could not be made.
            case pipe(SystemError)
            /// `posix_spawn` failed.
            case spawn(SystemError)
            /// Its standard input could not be written (it exited early: EPIPE).
            case input(SystemError)
            /// It closed its standard output, or wrote something other than `ready` (the text, trimmed; empty
            /// when it wrote nothing).
            case notReady(String)
            /// It did not say `ready` in time; it has been sent SIGTERM.
            case timedOut
        }

        public let reason: Reason
        /// The system call's failure, if one caused it.
        public var cause: SystemError? {
            switch reason {
            case .pipe(let cause), .spawn(let cause), .input(let cause): cause
            case .notReady, .timedOut: nil
            }
        }
    }

    /// Starts `executable` with `arguments` and exactly `environment` in a new session. Standard error goes to
    /// `errorLog` (created or truncated, mode 0600), else /dev/null: it outlives this process, and a terminal or a
    /// hotkey daemon's pipe would be gone. With `readyWithin` (milliseconds), standard output is a pipe and this
    /// returns once the process writes a line starting with `ready`; without it, standard output is /dev/null
    /// and this returns once the process is spawned.
    @discardableResult
    public static func start(
        _ executable: String, arguments: [String], environment: [String: String], input: Input = .nothing,
        errorLog: String? = nil, readyWithin timeout: Int32? = nil
    ) throws(Failure) -> Int32 {
        var readyFDs: [Int32] = [-1, -1]
        if timeout != nil {
            guard pb_pipe_cloexec(&readyFDs) == 0 else { throw Failure(reason: .pipe(.last("pipe2"))) }
        }
        var inputFDs: [Int32] = [-1, -1]
        if case .bytes = input {
            guard pb_pipe_cloexec(&inputFDs) == 0 else {
                let cause = SystemError.last("pipe2")
                closeAll(readyFDs)
                throw Failure(reason: .pipe(cause))
            }
        }
        defer { if readyFDs[0] >= 0 { close(readyFDs[0]) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copy; the originals close in the child as it executes.
        switch input {
        case .nothing:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .bytes:
            posix_spawn_file_actions_adddup2(&actions, inputFDs[0], 0)
        case .terminal:
            if let terminal = (0...2).first(where: { isatty($0) == 1 }) {
                if terminal != 0 { posix_spawn_file_actions_adddup2(&actions, terminal, 0) }
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
        }
        if timeout != nil {
            posix_spawn_file_actions_adddup2(&actions, readyFDs[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(
            &actions, 2, errorLog ?? "/dev/null", errorLog == nil ? O_WRONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID: no controlling terminal (a terminal's hang-up sends it no SIGHUP), no job control.
        // SETSIGMASK and SETSIGDEF: it starts with no signal blocked and every signal at its default, whatever this
        // process blocked (a daemon's signal thread) or ignored (SIGPIPE while writing), so SIGTERM stops it.
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(0x80 | 0x08 | 0x04))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        if readyFDs[1] >= 0 { close(readyFDs[1]) }
        if inputFDs[0] >= 0 { close(inputFDs[0]) }
        guard status == 0 else {
            if inputFDs[1] >= 0 { close(inputFDs[1]) }
            throw Failure(reason: .spawn(SystemError("posix_spawn", errno: status)))
        }
        if case .bytes(let data) = input {
            // SIGPIPE ignored meanwhile: a process that died early shows as EPIPE rather than ending this one.
            let previous = signal(SIGPIPE, SIG_IGN)
            let written = Result { () throws(SystemError) in try FileDescriptor.write(data, to: inputFDs[1]) }
            signal(SIGPIPE, previous)
            close(inputFDs[1])
            if case .failure(let failure) = written {
                kill(pid, SIGTERM)
                throw Failure(reason: .input(failure))
            }
        }
        guard let timeout else { return pid }
        var reply = pollfd(fd: readyFDs[0], events: Int16(POLLIN), revents: 0)
        var ready: Int32
        repeat { ready = poll(&reply, 1, timeout) } while ready < 0 && errno == EINTR
        guard ready > 0 else {
            kill(pid, SIGTERM)
            throw Failure(reason: .timedOut)
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(readyFDs[0], &buffer, buffer.count)
        let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        if text.hasPrefix("ready") { return pid }
        throw Failure(reason: .notReady(text.trimmingWhitespaceAndNewlines()))
    }

    private static func closeAll(_ fds: [Int32]) {
        for fd in fds where fd >= 0 { close(fd) }
    }
}
