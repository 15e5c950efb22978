import CSystemShim
public import DisplayBackends
import FoundationEssentials
public import PasteboardControl
import SystemSupport
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
    /// standard descriptors as its standard input (else /dev/null), standard output on /dev/null and standard
    /// error in `runtime`'s `paste.log` (where `pb doctor` finds why a paste failed); does not wait.
    public static func start(
        executable: String, arguments: [String], environment: [String: String], runtime: RuntimeDirectory
    ) throws(ClipboardError) {
        // Without a usable runtime directory the typing process's errors go nowhere, as a terminal's would.
        let log: String?
        do {
            try runtime.prepare()
            log = runtime.pasteLogPath
        } catch {
            log = nil
        }
        do {
            try DetachedProcess.start(
                executable, arguments: arguments, environment: environment, input: .terminal, errorLog: log)
        } catch {
            let cause = error.cause
            throw ClipboardError(
                "Cannot start the process that types the paste: \(cause?.reason ?? "it did not start").",
                cause: cause)
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
