import ClipboardBackend
import DisplayBackends
import FoundationEssentials
import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import PasteboardSystem

extension Context {
    /// The configuration file, read afresh.
    func configuration() throws -> Configuration {
        do {
            return try Configuration.load(environment: environment)
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
    }

    /// The system clipboard for this invocation (the X11 selection, or the store when headless).
    func clipboard() throws -> SystemClipboard {
        do {
            return try SystemClipboard(environment: environment)
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
    }

    /// Which clipboard this invocation uses.
    var backendKind: BackendKind { get throws { try clipboard().kind } }

    var runtime: RuntimeDirectory { RuntimeDirectory.standard(environment: environment) }
    var daemon: ControlClient { ControlClient(runtime: runtime) }

    /// Tells watchers about a change made directly to the store. The change is made already: a daemon that cannot
    /// be told is worth a warning, not a failure.
    func announce(_ event: ControlEvent) {
        do {
            try daemon.announce(event)
        } catch {
            stderr.line("Warning: the daemon was not told (\(error.message)).")
        }
    }

    /// Tells a running daemon that history items `ids` are gone, so that it empties a selection holding one of
    /// them; returns why it could not be told, if it runs and could not. Without a daemon, the `pb __serve` owners of
    /// a deleted item are stopped. Headless, the store emptied the clipboard itself.
    func forgetOnDisplay(_ ids: [Int64]) -> String? {
        let clipboard: SystemClipboard
        do {
            clipboard = try SystemClipboard(environment: environment)
        } catch {
            return error.message
        }
        guard clipboard.kind.hasDisplay else { return nil }
        do {
            try clipboard.daemon.perform(.forget(ids: ids), timeout: 2)
        } catch where error.code == .notRunning {
            do { try clipboard.stopOwnersServing(ids) } catch { return error.message }
        } catch {
            return error.message
        }
        return nil
    }

    /// How `pb` keeps an item on the clipboard without a daemon: `pb __serve ID` in a process of its own.
    func ownerFallback(once: Bool, expire: TimeInterval?, plain: Bool = false) -> (Int64) -> SystemClipboard.Fallback {
        { id in
            var arguments = ["__serve", String(id)]
            if once { arguments.append("--once") }
            if plain { arguments.append("--plain") }
            if let expire { arguments += ["--expire", String(expire)] }
            return .ownerProcess(executable: "/proc/self/exe", arguments: arguments)
        }
    }
}

extension ClipboardError {
    /// As a command's failure.
    var failure: CommandFailure { CommandFailure(message) }
}
