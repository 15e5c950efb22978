// Copies its arguments as text to the system clipboard, or prints the clipboard's text when given none.
// Works on X11 (through `pb daemon` when it runs) and headless (through the history store).
import PasteboardKit

let arguments = CommandLine.arguments.dropFirst()
do {
    if arguments.isEmpty {
        print(try Pasteboard.general.string ?? "(the clipboard holds no text)")
    } else {
        try Pasteboard.general.setString(arguments.joined(separator: " "))
        print("Copied. Change count: \(try Pasteboard.general.changeCount). Paste it now; press Return to exit.")
        _ = readLine()
    }
} catch {
    print("Error: \(error)")
}
