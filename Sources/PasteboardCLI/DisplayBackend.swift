import Foundation
import PasteboardDaemon
import PasteboardHistory
import PasteboardModel
import X11Backend
#if canImport(Glibc)
import Glibc
#endif

/// Where the clipboard lives for this invocation: the X11 CLIPBOARD selection, or the store (headless).
enum DisplayBackend: Equatable {
    case x11(display: String)
    case headless

    /// `PB_BACKEND` (x11, headless) wins; else `DISPLAY` means X11; else headless.
    static func detect(_ environment: [String: String]) throws -> DisplayBackend {
        let display = environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        switch environment["PB_BACKEND"] {
        case "headless": return .headless
        case "x11":
            guard let display else { throw CommandFailure("PB_BACKEND=x11 but DISPLAY is not set.") }
            return .x11(display: display)
        case nil, "", "auto":
            return display.map { .x11(display: $0) } ?? .headless
        case let other?:
            throw CommandFailure("PB_BACKEND='\(other)' is not a backend; use x11 or headless.")
        }
    }

    var name: String {
        switch self {
        case .x11: return "x11"
        case .headless: return "headless"
        }
    }
}

extension Context {
    var backend: DisplayBackend { get throws { try DisplayBackend.detect(environment) } }
    var runtime: RuntimeDirectory { RuntimeDirectory.standard(environment: environment) }
    var daemon: DaemonClient { DaemonClient(runtime: runtime) }

    /// Tells watchers about a change made directly to the store (best effort: no daemon, no event).
    func notifyDaemon(_ event: [String: Any]) {
        _ = daemon.request(["command": "notify", "event": event], timeout: 1)
    }

    /// Opens the X display for a client operation.
    func x11Clipboard(_ display: String) throws -> X11Clipboard {
        do {
            return try X11Clipboard(displayName: display, watch: [])
        } catch {
            throw CommandFailure(error.message + " (set PB_BACKEND=headless to use the store instead)")
        }
    }
}

/// Puts a recorded history item on the real clipboard: through the daemon when it runs, else through a
/// short-lived owner process (as xclip does), which serves pastes until another application copies.
enum ClipboardDelivery {
    static func deliver(id: Int64, once: Bool, expire: TimeInterval?, context: Context) throws {
        guard case .x11 = try context.backend else { return }
        var request: [String: Any] = ["command": "restore", "id": id, "once": once]
        if let expire { request["expire"] = expire }
        if let reply = context.daemon.request(request, timeout: 5) {
            if reply["ok"] as? Bool == true { return }
            throw CommandFailure("The daemon could not take the clipboard: \(reply["error"] ?? "unknown error").")
        }
        try spawnOwner(id: id, once: once, expire: expire, context: context)
    }

    /// Starts `pb __serve ID` in its own session and waits until it owns the selection.
    static func spawnOwner(id: Int64, once: Bool, expire: TimeInterval?, context: Context) throws {
        var arguments = ["pb", "__serve", String(id)]
        if once { arguments.append("--once") }
        if let expire { arguments += ["--expire", String(expire)] }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CommandFailure("Cannot create a pipe: \(String(cString: strerror(errno))).") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(0x80))  // POSIX_SPAWN_SETSID: outlive the shell's job control
        let environment = context.environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let status = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, envp)
        close(fds[1])
        defer { close(fds[0]) }
        guard status == 0 else { throw CommandFailure("Cannot start a clipboard owner: \(String(cString: strerror(status))).") }
        var reply = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 256)
        if poll(&reply, 1, 5000) > 0 {
            let count = read(fds[0], &buffer, buffer.count)
            if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).hasPrefix("ready") { return }
            let message = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "it exited"
            throw CommandFailure("Could not take the clipboard: \(message).")
        }
        kill(pid, SIGTERM)
        throw CommandFailure("The clipboard owner did not start within 5 s.")
    }
}
