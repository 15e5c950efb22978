import CSystemShim
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `chafa`, run as a bounded subprocess, turns image bytes into sixel, kitty or half-block output for a box of
/// terminal cells. The image reaches it as an anonymous in-memory file (nothing is written to disk: a copied
/// picture can be private), and its standard input is the terminal, from which it learns the cell size in
/// pixels. It is killed after `timeout` or when its output passes `maxOutput`.
struct Chafa: Sendable {
    let executable: String

    static let timeoutMilliseconds = 2000
    static let maxOutput = 8 << 20

    /// chafa on `PATH`, if installed.
    static func find(path: String?) -> Chafa? {
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/chafa"
            if access(candidate, X_OK) == 0 { return Chafa(executable: candidate) }
        }
        return nil
    }

    /// chafa's options for `graphics` in a box of `columns`×`rows` cells.
    static func arguments(for graphics: TerminalGraphics, columns: Int, rows: Int, usesColor: Bool) -> [String] {
        var arguments = ["--size", "\(columns)x\(rows)", "--animate", "off", "--polite", "on"]
        switch graphics {
        case .kitty: arguments += ["--format", "kitty"]
        case .sixel: arguments += ["--format", "sixels"]
        case .blocks, .text:
            // Half-blocks in the 256 colours every terminal (and tmux) has; under NO_COLOR, shapes only.
            arguments += ["--format", "symbols", "--symbols", usesColor ? "vhalf" : "block+border+space"]
            arguments += ["--colors", usesColor ? "256" : "none"]
        }
        return arguments
    }

    /// chafa's output for `image`.
    func render(
        _ image: [UInt8], graphics: TerminalGraphics, columns: Int, rows: Int, usesColor: Bool, terminal: Int32
    ) throws(PickerError) -> [UInt8] {
        let memory = pb_memfd_cloexec("pb-pick-preview")
        guard memory >= 0 else { throw Self.failure("Cannot hold the image for chafa", .last("memfd_create")) }
        defer { close(memory) }
        var written = 0
        while written < image.count {
            let count = image.withUnsafeBytes { write(memory, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Self.failure("Cannot hold the image for chafa", .last("write")) }
            written += count
        }
        var output: [Int32] = [-1, -1]
        guard pb_pipe_cloexec(&output) == 0 else { throw Self.failure("Cannot start chafa", .last("pipe2")) }
        var readEnd = output[0]
        defer { if readEnd >= 0 { close(readEnd) } }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, terminal, 0)  // the cell size in pixels (TIOCGWINSZ)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, memory, 3)
        let arguments =
            [executable] + Self.arguments(for: graphics, columns: columns, rows: rows, usesColor: usesColor) + [
                "/dev/fd/3"
            ]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = [strdup("PATH=/usr/bin:/bin"), strdup("LANG=C.UTF-8"), nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(output[1])
        guard status == 0 else {
            let cause = SystemError("posix_spawn", errno: status)
            throw PickerError("Cannot start chafa: \(cause.reason).", cause: cause)
        }

        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let deadline = Self.milliseconds() + Self.timeoutMilliseconds
        var problem: String?
        while true {
            let left = deadline - Self.milliseconds()
            if left <= 0 {
                problem = "chafa took longer than \(Self.timeoutMilliseconds / 1000) s"
                break
            }
            var polled = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&polled, 1, Int32(left))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = read(readEnd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            result += buffer[0..<count]
            if result.count > Self.maxOutput {
                problem = "chafa's output passed \(Self.maxOutput >> 20) MiB"
                break
            }
        }
        close(readEnd)
        readEnd = -1
        if problem != nil { kill(pid, SIGKILL) }
        var exit: Int32 = 0
        while waitpid(pid, &exit, 0) < 0 && errno == EINTR {}
        if let problem { throw PickerError("The image was not drawn: \(problem).") }
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        guard exit & 0x7F == 0, (exit >> 8) & 0xFF == 0 else {
            throw PickerError("chafa could not draw the image (status \(exit >> 8 & 0xFF)).")
        }
        return result
    }

    private static func failure(_ what: String, _ cause: SystemError) -> PickerError {
        PickerError("\(what): \(cause.reason).", cause: cause)
    }

    private static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
