public import FoundationEssentials
import CSystemShim
#if canImport(Glibc)
import Glibc
#endif

/// Runs a short-lived program and collects what it prints: for asking a tool of the desktop (`gsettings`,
/// `gnome-shell --version`) what only it knows.
public enum ChildProcess {
    /// What a run gave: the exit status (nil when killed by a signal or at the timeout), standard output and error.
    public struct Result: Sendable {
        public let status: Int32?
        public let output: Data
        public let errorOutput: Data
        public var succeeded: Bool { status == 0 }
    }

    /// Runs `program` (searched in `PATH` of `environment`) with `arguments`, its input empty; waits up to `timeout`,
    /// then kills it. Each output is bounded by `limit` bytes (the rest is read and dropped).
    public static func run(
        _ program: String, _ arguments: [String], environment: [String: String], timeout: Duration = .seconds(5),
        limit: Int = 1 << 20
    ) throws(SystemError) -> Result {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pb_pipe_cloexec(&out) == 0 else { throw SystemError.last("pipe2") }
        guard pb_pipe_cloexec(&err) == 0 else {
            let failure = SystemError.last("pipe2")
            close(out[0])
            close(out[1])
            throw failure
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, program, &actions, nil, argv, envp)
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard spawned == 0 else { throw SystemError("posix_spawnp \(program)", errno: spawned) }
        var collected: [Int32: Data] = [out[0]: Data(), err[0]: Data()]
        var open = [out[0], err[0]]
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var timedOut = false
        while !open.isEmpty {
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero {
                timedOut = true
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            if poll(&fds, nfds_t(fds.count), milliseconds) < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if collected[entry.fd, default: Data()].count < limit {
                        collected[entry.fd, default: Data()].append(contentsOf: buffer[..<min(count, limit)])
                    }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return Result(
            status: timedOut || !exited ? nil : (status >> 8) & 0xff, output: collected[out[0]] ?? Data(),
            errorOutput: collected[err[0]] ?? Data())
    }
}
