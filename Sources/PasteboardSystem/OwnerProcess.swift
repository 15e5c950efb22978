import CSystemShim
import FoundationEssentials
import SystemSupport
import PasteboardControl
#if canImport(Glibc)
import Glibc
import TextSupport
#endif

/// A short-lived clipboard owner in a process of its own (as xclip forks one): it outlives the command that
/// started it and serves pastes until another application copies.
enum OwnerProcess {
    /// How long to wait for the owner to say it owns the clipboard.
    static let startTimeout: Int32 = 5000

    /// Starts `executable` with `arguments` in its own session, writes `input` to its standard input (which
    /// is otherwise /dev/null) and waits until it prints `ready`.
    static func start(
        executable: String, arguments: [String], environment: [String: String], input: Data? = nil
    ) throws(ClipboardError) {
        var fds: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else {
            let cause = SystemError.last("pipe2")
            throw ClipboardError("Cannot create a pipe: \(cause.reason).", cause: cause)
        }
        var inputFDs: [Int32] = [-1, -1]
        if input != nil {
            guard pb_pipe_cloexec(&inputFDs) == 0 else {
                let cause = SystemError.last("pipe2")
                close(fds[0])
                close(fds[1])
                throw ClipboardError("Cannot create a pipe: \(cause.reason).", cause: cause)
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, inputFDs[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)  // dup2 clears close-on-exec on the copy
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID: outlive the shell's job control
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(fds[1])
        defer { close(fds[0]) }
        if input != nil { close(inputFDs[0]) }
        guard status == 0 else {
            if input != nil { close(inputFDs[1]) }
            let cause = SystemError("posix_spawn", errno: status)
            throw ClipboardError("Cannot start a clipboard owner: \(cause.reason).", cause: cause)
        }
        if let input {
            let written = writeAll(input, to: inputFDs[1])
            close(inputFDs[1])
            if let written {
                kill(pid, SIGTERM)
                throw ClipboardError("Cannot hand the item to the clipboard owner: \(written.reason).", cause: written)
            }
        }
        var reply = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 256)
        if poll(&reply, 1, startTimeout) > 0 {
            let count = read(fds[0], &buffer, buffer.count)
            let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
            if text.hasPrefix("ready") { return }
            let message = text.isEmpty ? "it exited" : text.trimmingWhitespaceAndNewlines()
            throw ClipboardError("Could not take the clipboard: \(message).")
        }
        kill(pid, SIGTERM)
        throw ClipboardError("The clipboard owner did not start within \(startTimeout / 1000) s.")
    }

    /// Writes all of `data` to `fd`; the error, or nil. SIGPIPE is ignored meanwhile, so an owner that died
    /// early shows as EPIPE rather than ending this process.
    private static func writeAll(_ data: Data, to fd: Int32) -> SystemError? {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        return data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> SystemError? in
            var offset = 0
            while offset < buffer.count {
                let count = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return SystemError.last("write")
                }
                offset += count
            }
            return nil
        }
    }
}
