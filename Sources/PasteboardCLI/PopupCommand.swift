import ArgumentParsing
import CSystemShim
import FoundationEssentials
import PasteboardControl
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `pb popup`: shows the Pasteboard History popup at the pointer, for a global hotkey. It only sends the request
/// to the resident popup (`pasteboard-gtk` keeps one ready while its window or `--background` runs); with none
/// running it starts `pasteboard-gtk --background --popup`, which stays for the next time.
enum PopupCommand: Command {
    static let spec = CommandSpec(
        name: "popup", abstract: "Show the history popup at the pointer (bind this to a global hotkey).",
        options: [
            .init("paste", help: "After copying, paste into the window that had the focus (Ctrl+V).")
        ],
        discussion: "The popup of pasteboard-gtk: type to filter, Enter copies, Escape closes. A running\n"
            + "pasteboard-gtk (its window, or 'pasteboard-gtk --background') shows it within a frame; with none\n"
            + "running, pb starts 'pasteboard-gtk --background' (beside pb, else on PATH), which stays.\n\n"
            + "EXAMPLE (i3):\n  bindsym $mod+v exec --no-startup-id pb popup --paste")

    /// How long a background instance may take to start and show the popup.
    static let startTimeout: Int32 = 15_000

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let pastes = arguments.flag("paste")
        let channel = PopupChannel(runtime: RuntimeDirectory.standard(environment: context.environment))
        let request = PopupRequest(pastes: pastes, display: PopupRequest.display(environment: context.environment))
        guard request.display != nil else {
            throw CommandFailure("The popup needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set.")
        }
        do {
            try channel.show(request)
            return
        } catch  where error.code == .notRunning {
            // Nobody listens: start a resident popup, which shows this time and stays for the next.
        } catch {
            throw CommandFailure(error.message)
        }
        guard let app = appExecutable(environment: context.environment) else {
            throw CommandFailure(
                "No pasteboard-gtk runs and none was found beside pb or on PATH: build it with 'make app'.")
        }
        try startBackground(app, pastes: pastes, environment: context.environment)
    }

    /// `pasteboard-gtk` beside the running pb, else the first on PATH.
    static func appExecutable(environment: [String: String]) -> String? {
        if let own = InvocationName.runningExecutable() {
            let beside = URL(fileURLWithPath: own).deletingLastPathComponent().path + "/pasteboard-gtk"
            if access(beside, X_OK) == 0 { return beside }
        }
        return InvocationName.firstOnPath("pasteboard-gtk", path: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
    }

    /// Starts `app --background --popup` in a session of its own and waits until it says "ready".
    private static func startBackground(_ app: String, pastes: Bool, environment: [String: String]) throws {
        var fds: [Int32] = [0, 0]
        guard pb_pipe_cloexec(&fds) == 0 else {
            throw CommandFailure("Cannot create a pipe: \(SystemError.lastReason).")
        }
        defer { close(fds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)  // dup2 clears close-on-exec on the copy
        // It outlives pb: its messages would otherwise go to a terminal (or a hotkey daemon's pipe) long gone.
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID: outlive the shell's job control
        let argv = [app, "--background", "--popup"] + (pastes ? ["--paste"] : [])
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, app, &actions, &attributes, cArguments, cEnvironment)
        close(fds[1])
        guard status == 0 else {
            throw CommandFailure("Cannot start \(app): \(SystemError.reason(errno: status)).")
        }
        var ready = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 256)
        if poll(&ready, 1, startTimeout) > 0 {
            let count = read(fds[0], &buffer, buffer.count)
            if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).hasPrefix("ready") { return }
            throw CommandFailure(
                "\(app) --background stopped before showing the popup; run it in a terminal to see why.")
        }
        kill(pid, SIGTERM)
        throw CommandFailure("\(app) --background did not show the popup within \(startTimeout / 1000) s.")
    }
}
