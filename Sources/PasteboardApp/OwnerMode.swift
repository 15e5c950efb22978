import Foundation
import PasteboardHistory
import PasteboardModel
import PasteboardSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `pasteboard-gtk __serve ID` (or `__serve - --type TYPE` with the data on standard input): the short-lived
/// clipboard owner the app starts when no daemon runs, as `pb copy` starts `pb __serve`. It owns the clipboard
/// until another application copies, so a copy outlives the window; it never opens a window.
enum OwnerMode {
    /// Whether `arguments` (without the program name) ask for owner mode.
    static func isRequested(_ arguments: [String]) -> Bool { arguments.first == "__serve" }

    /// Serves and returns the exit status.
    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            try serve(Array(arguments.dropFirst()), environment: environment)
            return 0
        } catch {
            FileHandle.standardError.write(Data("pasteboard-gtk: \(error.message)\n".utf8))
            print(error.message)  // the starting app reads the first line: anything but "ready" is the reason
            return 1
        }
    }

    private static func serve(_ arguments: [String], environment: [String: String]) throws(AppError) {
        guard let target = arguments.first else { throw AppError("__serve needs a history item id or '-'.") }
        var item: PasteboardItem
        if target == "-" {
            guard arguments.count == 3, arguments[1] == "--type" else { throw AppError("__serve - needs --type TYPE.") }
            let data = FileHandle.standardInput.readDataToEndOfFile()
            item = PasteboardItem(data: data, type: ContentType(arguments[2]))
        } else {
            guard let id = Int64(target), id > 0 else { throw AppError("'\(target)' is not a history item id.") }
            do {
                item = try HistoryStore(location: .standard(environment: environment)).pasteboardItem(id: id)
            } catch {
                throw AppError(error.message)
            }
            if arguments.dropFirst().contains("--plain") {
                guard let text = item.plainTextOnly else { throw AppError("Item \(id) has no text to paste as plain text.") }
                item = text
            }
        }
        do {
            let clipboard = try SystemClipboard(environment: environment)
            try clipboard.serve(item, once: false, until: nil) {
                FileHandle.standardOutput.write(Data("ready\n".utf8))
                // Let go of the parent's pipe: it waits only for "ready".
                let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
                if null >= 0 {
                    dup2(null, 1)
                    close(null)
                }
            }
        } catch {
            throw AppError(error.message)
        }
    }
}
