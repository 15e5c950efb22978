import ArgumentParsing
import FoundationEssentials
import PasteboardControl
import PasteboardSystem

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
            throw CommandFailure(error.message, cause: error)
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
        do {
            try DetachedProcess.start(
                app, arguments: ["--background", "--popup"] + (pastes ? ["--paste"] : []), environment: environment,
                readyWithin: startTimeout)
        } catch {
            switch error.reason {
            case .pipe(let cause):
                throw CommandFailure("Cannot create a pipe: \(cause.reason).", cause: cause)
            case .spawn(let cause), .input(let cause):
                throw CommandFailure("Cannot start \(app): \(cause.reason).", cause: cause)
            case .notReady:
                throw CommandFailure(
                    "\(app) --background stopped before showing the popup; run it in a terminal to see why.")
            case .timedOut:
                throw CommandFailure("\(app) --background did not show the popup within \(startTimeout / 1000) s.")
            }
        }
    }
}
