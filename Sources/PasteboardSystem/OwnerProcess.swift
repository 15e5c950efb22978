import CSystemShim
import DisplayBackends
import FoundationEssentials
import PasteboardControl
import SystemSupport
#if canImport(Glibc)
import Glibc
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
        do {
            try DetachedProcess.start(
                executable, arguments: arguments, environment: environment,
                input: input.map { .bytes($0) } ?? .nothing, readyWithin: startTimeout)
        } catch {
            switch error.reason {
            case .pipe(let cause):
                throw ClipboardError("Cannot create a pipe: \(cause.reason).", cause: cause)
            case .spawn(let cause):
                throw ClipboardError("Cannot start a clipboard owner: \(cause.reason).", cause: cause)
            case .input(let cause):
                throw ClipboardError("Cannot hand the item to the clipboard owner: \(cause.reason).", cause: cause)
            case .notReady(let text):
                throw ClipboardError("Could not take the clipboard: \(text.isEmpty ? "it exited" : text).")
            case .timedOut:
                throw ClipboardError("The clipboard owner did not start within \(startTimeout / 1000) s.")
            }
        }
    }
}
