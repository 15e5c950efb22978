import FoundationEssentials
import CSystemShim
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `pasteboard-ocr` process the recognition worker sends pictures to, one at a time (the other side of the wire
/// is in `Sources/pasteboard-ocr/main.swift`).
///
/// Started with `OMP_THREAD_LIMIT=1`, so Tesseract's OpenMP loops use one core; it lowers its own priority and bounds
/// its address space. A reply that does not come within the time limit (plus a grace for loading the models) gets
/// the process killed; the next picture starts another.
final class RecognitionProcess {
    /// What the recognizer said of one picture.
    enum Reply {
        case text(String)
        /// The picture is in no format it reads, or is too large to decode.
        case unreadable(String)
        case timedOut(String)
        case failed(String)
    }

    let pid: pid_t
    private let input: Int32
    private let output: Int32

    /// Starts `executable` for `languages`, its standard error going to `errorDescriptor` (the daemon's log).
    init(executable: String, languages: String, timeLimit: Duration, errorDescriptor: Int32) throws(SystemError) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pb_pipe_cloexec(&toChild) == 0 else { throw SystemError.last("pipe2") }
        guard pb_pipe_cloexec(&fromChild) == 0 else {
            let failure = SystemError.last("pipe2")
            close(toChild[0])
            close(toChild[1])
            throw failure
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorDescriptor, 2)
        let arguments = [executable, "--languages", languages, "--time-limit", String(timeLimit.components.seconds)]
        var environment = ["OMP_THREAD_LIMIT=1"]
        for name in ["TESSDATA_PREFIX", "PATH", "LANG"] {
            if let value = getenv(name) { environment.append(name + "=" + String(cString: value)) }
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw SystemError("posix_spawn \(executable)", errno: spawned)
        }
        self.pid = pid
        self.input = toChild[1]
        self.output = fromChild[0]
    }

    deinit {
        close(input)
        close(output)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Sends `picture` and waits for the reply until `deadline`; nil when the process died or did not answer (it is
    /// then of no further use).
    func recognize(_ picture: Data, deadline: ContinuousClock.Instant) -> Reply? {
        let length = UInt32(picture.count)
        var request = Data([UInt8(length & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 24)])
        request.append(picture)
        guard writeAll(request) else { return nil }
        guard let header = readExactly(5, deadline: deadline) else { return nil }
        let count = Int(header[1]) | Int(header[2]) << 8 | Int(header[3]) << 16 | Int(header[4]) << 24
        guard count <= 16 << 20, let body = readExactly(count, deadline: deadline) else { return nil }
        let text = String(decoding: body, as: UTF8.self)
        switch header[0] {
        case 0: return .text(text)
        case 1: return .unreadable(text)
        case 2: return .timedOut(text)
        default: return .failed(text)
        }
    }

    private func writeAll(_ data: Data) -> Bool {
        var done = 0
        while done < data.count {
            let wrote = data.withUnsafeBytes { write(input, $0.baseAddress! + done, data.count - done) }
            if wrote < 0 && errno == EINTR { continue }
            if wrote <= 0 { return false }
            done += wrote
        }
        return true
    }

    private func readExactly(_ count: Int, deadline: ContinuousClock.Instant) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 60_000))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { if ready < 0 { return nil } else { continue } }
            let got = bytes.withUnsafeMutableBytes { read(output, $0.baseAddress! + done, count - done) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { return nil }
            done += got
        }
        return bytes
    }
}
