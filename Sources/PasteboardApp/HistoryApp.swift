import Foundation
import GtkSupport
import PasteboardHistory
import PasteboardSystem

/// The `pasteboard-gtk` program: the "Pasteboard History" window, or (`__serve`) the short-lived clipboard owner
/// it starts when no daemon runs.
public enum HistoryApp {
    static let usage = """
        Usage: pasteboard-gtk [--popup [--paste]]

        Opens the Pasteboard History window: the clipboard history (newest first), search, a preview, and
        copying text, past items and downloads to the clipboard. It reads the same store as 'pb' and updates live
        while 'pb daemon' runs, and asks "Allow ... to paste?" for items that ask before pasting.

          --popup   A compact list near the pointer, for a global hotkey: type to filter, Enter copies, Escape
                    closes.
          --paste   With --popup: after copying, paste into the window that had the focus (Ctrl+V, X11).
        """

    /// Runs the program with `arguments` (without the program name); returns the exit status.
    @MainActor
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        if OwnerMode.isRequested(arguments) { return OwnerMode.run(arguments, environment: environment) }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let isPopup = arguments.contains("--popup")
        let pastes = arguments.contains("--paste")
        if let unknown = arguments.first(where: { $0 != "--popup" && $0 != "--paste" }) {
            FileHandle.standardError.write(Data("Error: unknown argument '\(unknown.prefix(200))'.\n\(usage)\n".utf8))
            return 64
        }
        if pastes && !isPopup {
            FileHandle.standardError.write(Data("Error: --paste goes with --popup.\n\(usage)\n".utf8))
            return 64
        }
        let log = TestLog(environment: environment)
        do {
            try Gtk.initialize()
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
        if isPopup {
            let popup = PopupController(
                store: store, clipboard: clipboard, environment: environment, log: log, pastes: pastes)
            popup.start()
            MainLoop.run()
            return 0
        }
        let controller = HistoryController(store: store, clipboard: clipboard, environment: environment, log: log)
        controller.start()
        MainLoop.run()
        return 0
    }

    private static func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return 1
    }
}
