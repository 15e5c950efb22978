import Foundation
import GtkSupport
import PasteboardHistory
import PasteboardSystem

/// The `pasteboard-gtk` program: the "Pasteboard History" window, or (`__serve`) the short-lived clipboard owner
/// it starts when no daemon runs.
public enum HistoryApp {
    static let usage = """
        Usage: pasteboard-gtk

        Opens the Pasteboard History window: the clipboard history (newest first), search, a preview, and
        copying text, past items and downloads to the clipboard. It reads the same store as 'pb' and updates live
        while 'pb daemon' runs.
        """

    /// Runs the program with `arguments` (without the program name); returns the exit status.
    @MainActor
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        if OwnerMode.isRequested(arguments) { return OwnerMode.run(arguments, environment: environment) }
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        if let unknown = arguments.first {
            FileHandle.standardError.write(Data("Error: unknown argument '\(unknown.prefix(200))'.\n\(usage)\n".utf8))
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
