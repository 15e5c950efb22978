import CSystemShim
import FoundationEssentials
import SystemSupport
import PasteboardControl
#if canImport(Glibc)
import Glibc
#endif

/// A paste typed by a process of its own once the picker's terminal has closed (`pb pick --paste` on Wayland).
///
/// On Wayland the keys go to whichever window the compositor focuses, and no client may choose. A terminal that a
/// hotkey opened for the picker (`foot pb pick --paste`) holds the focus until it closes, which is after pb has
/// exited; the compositor then gives the focus back to the window before it. So pb hands the paste to a process in
/// a session of its own that keeps the picker's terminal as its standard input, waits until the terminal hangs up
/// (its window is closing) and a moment more, and then types. A terminal that stays open (pb pick was run from a
/// shell in it) is the window that had the focus: after `terminalWait` the paste goes there.
public enum DeferredPaste {
    /// How long the typing process waits for the terminal to close, in milliseconds.
    public static let terminalWait: Int32 = 1000
    /// How long after the hang-up it waits for the terminal's window to go, in microseconds.
    static let closingGrace: UInt32 = 150_000

    /// Starts `executable` with `arguments` in a session of its own, with the terminal on one of this process's
    /// standard descriptors as its standard input (else /dev/null) and the rest on /dev/null; does not wait.
    public static func start(
        executable: String, arguments: [String], environment: [String: String]
    ) throws(ClipboardError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal = (0...2).first(where: { isatty($0) == 1 }) {
            if terminal != 0 { posix_spawn_file_actions_adddup2(&actions, terminal, 0) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID: no controlling terminal, so the terminal's hang-up sends it no SIGHUP.
        posix_spawnattr_setflags(&attributes, Int16(0x80))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            let cause = SystemError("posix_spawn", errno: status)
            throw ClipboardError("Cannot start the process that types the paste: \(cause.reason).", cause: cause)
        }
    }

    /// In the typing process: returns once standard input, the picker's terminal, has hung up and `closingGrace`
    /// has passed, or after `terminalWait` when it stays open. Without a terminal, after `closingGrace`.
    public static func waitForTerminalToClose() {
        guard isatty(0) == 1 else {
            usleep(closingGrace)
            return
        }
        var terminal = pollfd(fd: 0, events: 0, revents: 0)  // POLLHUP is reported whatever was asked for
        let deadline = Date().addingTimeInterval(Double(terminalWait) / 1000)
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            let ready = poll(&terminal, 1, left)
            if ready > 0 && terminal.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                usleep(closingGrace)
                return
            }
            if ready == 0 || (ready < 0 && errno != EINTR) { return }
        }
    }
}
