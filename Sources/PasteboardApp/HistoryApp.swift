import DisplayBackends
import Foundation
import GtkSupport
import PasteboardHistory
import PasteboardModel
import PasteboardSystem

/// The `pasteboard-gtk` program: the "Pasteboard History" window, or (`__serve`) the short-lived clipboard owner
/// it starts when no daemon runs.
public enum HistoryApp {
    static let usage = """
        Usage: pasteboard-gtk [--popup [--paste] [--once]] [--background]
               pasteboard-gtk --version

        Opens the Pasteboard History window: the clipboard history (newest first), search, a preview, and
        copying text, past items and downloads to the clipboard. It reads the same store as 'pb' and updates live
        while 'pb daemon' runs, and asks "Allow ... to paste?" for items that ask before pasting.

          --popup       A compact list near the pointer, for a global hotkey: type to filter, Enter copies,
                        Escape closes. A running window or background instance shows its ready popup at once;
                        with none, this process starts GTK and shows one itself.
          --paste       With --popup: after copying, paste into the window that had the focus (Ctrl+V).
          --once        With --popup: show it in this process, without asking a running instance.
          --background  Keep the popup ready, hidden, without the window: 'pb popup' and --popup then show it
                        within a frame. With --popup, also show it now.
        """

    /// Runs the program with `arguments` (without the program name); returns the exit status.
    @MainActor
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        MemoryPolicy.apply()
        if OwnerMode.isRequested(arguments) { return OwnerMode.run(arguments, environment: environment) }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage + "\n\n" + ShortcutsHelp.text)
            return 0
        }
        if arguments == ["--version"] || arguments == ["-V"] {
            print("pasteboard-gtk \(PasteboardVersion.current)")
            return 0
        }
        let known: Set<String> = ["--popup", "--paste", "--once", "--background"]
        if let unknown = arguments.first(where: { !known.contains($0) }) {
            FileHandle.standardError.write(Data("Error: unknown argument '\(unknown.prefix(200))'.\n\(usage)\n".utf8))
            return 64
        }
        let isPopup = arguments.contains("--popup")
        let pastes = arguments.contains("--paste")
        let once = arguments.contains("--once")
        let background = arguments.contains("--background")
        if (pastes || once) && !isPopup {
            FileHandle.standardError.write(Data("Error: --paste and --once go with --popup.\n\(usage)\n".utf8))
            return 64
        }
        if once && background {
            FileHandle.standardError.write(Data("Error: --once and --background exclude each other.\n\(usage)\n".utf8))
            return 64
        }
        // Before GTK starts (about 150 ms): a resident popup shows within a frame.
        if isPopup && !once && !background {
            if case .success = ResidentPopup.handOver(pastes: pastes, environment: environment) { return 0 }
        }
        // One instance: a running window (or background instance) on this display presents its window.
        if !isPopup && !background,
            case .success = ResidentPopup.handOver(pastes: false, window: true, environment: environment)
        {
            return 0
        }
        let log = TestLog(environment: environment)
        // Cairo without GL unless the user asks for GL (see RendererPolicy): less memory, a faster start.
        RendererPolicy.apply()
        do {
            Gtk.setProgramName("pasteboard-history")
            try Gtk.initialize()
            Gtk.setApplicationName("Pasteboard History")
        } catch {
            return fail(error.description)
        }
        log.note("gtk initialized")
        let store: HistoryStore
        let clipboard: SystemClipboard
        do {
            store = try HistoryStore(location: .standard(environment: environment))
            clipboard = try SystemClipboard(environment: environment)
        } catch let error as HistoryError {
            return fail(error.message)
        } catch let error as ClipboardError {
            return fail(error.message)
        } catch {
            return fail("\(error)")
        }
        log.note("store opened")
        Gtk.addStyleSheet(Styles.css)
        if background {
            return runInBackground(
                store: store, clipboard: clipboard, environment: environment, log: log,
                showing: isPopup ? pastes : nil)
        }
        if isPopup {
            let popup = PopupController(
                store: store, clipboard: clipboard, environment: environment, log: log, residence: .once)
            popup.show(pastes: pastes)
            MainLoop.run()
            return 0
        }
        let controller = HistoryController(store: store, clipboard: clipboard, environment: environment, log: log)
        controller.start()
        // Once the window is drawn, the popup is made ready in this process too (unless another one already is).
        var resident: ResidentPopup?
        MainLoop.after(0.2, whenIdle: true) {
            do throws(PopupLock.Failure) {
                resident = try ResidentPopup(
                    store: store, clipboard: clipboard, environment: environment, log: log,
                    presentWindow: { controller.present() })
            } catch {
                log.note("popup not resident: \(error.message)")
            }
        }
        MainLoop.run()
        withExtendedLifetime(resident) {}
        return 0
    }

    /// `--background`: the resident popup without the window, until the process is stopped. With `showing`
    /// (whether it pastes), shown at once. Prints "ready" once it listens (and shows), for `pb popup`, which
    /// starts it.
    @MainActor
    private static func runInBackground(
        store: HistoryStore, clipboard: SystemClipboard, environment: [String: String], log: TestLog,
        showing pastes: Bool?
    ) -> Int32 {
        let resident: ResidentPopup
        // The main window, made when a `pasteboard-gtk` asks for it; closing it hides it, the popup stays ready.
        var window: HistoryController?
        do throws(PopupLock.Failure) {
            resident = try ResidentPopup(
                store: store, clipboard: clipboard, environment: environment, log: log,
                presentWindow: {
                    if let window {
                        window.present()
                    } else {
                        let controller = HistoryController(
                            store: store, clipboard: clipboard, environment: environment, log: log)
                        controller.closeHides = true
                        controller.start()
                        window = controller
                    }
                })
        } catch {
            guard error.holder != nil else { return fail(error.message) }
            // Another one runs: hand it the request, if any, and leave it be.
            if let pastes,
                case .failure(let failure) = ResidentPopup.handOver(pastes: pastes, environment: environment)
            {
                return fail(failure.message)
            }
            FileHandle.standardOutput.write(Data("ready (\(error.message))\n".utf8))
            return 0
        }
        if let pastes { resident.popup.show(pastes: pastes) }
        // Unbuffered, at once: pb popup waits for this line.
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        MainLoop.run()
        withExtendedLifetime((resident, window)) {}
        return 0
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return 1
    }
}
