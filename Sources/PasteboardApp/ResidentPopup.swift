import Foundation
import GtkSupport
import PasteboardControl
import PasteboardHistory
import PasteboardSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The popup kept ready in a process that keeps GTK running (the main window's, or `pasteboard-gtk
/// --background`): built and realized at start-up, hidden between shows, and shown when a request comes on
/// `popup.sock` (`pb popup`, `pasteboard-gtk --popup`).
@MainActor
final class ResidentPopup {
    let popup: PopupController
    private var service: PopupService?

    /// Builds the popup and listens for requests, unless another resident holds the lock (or the runtime
    /// directory cannot be used): then it throws and nothing is left running.
    ///
    /// `presentWindow` shows the main window (making it, in a background instance) when a second `pasteboard-gtk`
    /// asks: one instance per user and display.
    init(
        store: HistoryStore, clipboard: SystemClipboard, environment: [String: String], log: TestLog,
        presentWindow: @escaping @MainActor () -> Void
    ) throws(PopupLock.Failure) {
        let channel = PopupChannel(runtime: .standard(environment: environment))
        let popup = PopupController(
            store: store, clipboard: clipboard, environment: environment, log: log, residence: .resident)
        self.popup = popup
        let display = PopupRequest.display(environment: environment)
        service = try PopupService(channel: channel, log: log) { [weak popup] request in
            guard let popup else { return PopupReply(ok: false, error: "The popup is gone.") }
            if let asked = request.display, asked != display {
                return PopupReply(
                    ok: false, error: "The resident popup runs on \(display ?? "no display"), not \(asked).")
            }
            if request.window == true {
                log.note("window requested")
                presentWindow()
                return PopupReply(ok: true, state: "window", pid: getpid())
            }
            log.note("popup requested\(request.pastes ? " with paste" : "")")
            return PopupReply(ok: true, state: popup.show(pastes: request.pastes), pid: getpid())
        }
        popup.prepare()
        log.note("popup resident")
    }

    /// Asks a resident popup (in another process) to show; whether one did. Called before GTK starts: it is the
    /// whole of `pasteboard-gtk --popup` when a resident answers.
    /// With `window`, asks it to present the main window instead (a second `pasteboard-gtk`).
    static func handOver(pastes: Bool, window: Bool = false, environment: [String: String])
        -> Result<PopupReply, ControlError>
    {
        let channel = PopupChannel(runtime: .standard(environment: environment))
        let request = PopupRequest(
            pastes: pastes, display: PopupRequest.display(environment: environment), window: window ? true : nil)
        return Result { () throws(ControlError) in try channel.show(request) }
    }
}
