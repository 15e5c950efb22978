import Foundation
import PasteboardSystem

extension Pasteboard {
    /// Kept for programs written before `general` became the system clipboard by default: it already is.
    ///
    /// With an explicit `environment` (a test, say), `sharedServer` becomes the system pasteboard that
    /// environment describes. Returns false, keeping the current server, when its display cannot be opened.
    @discardableResult
    public static func useSystemPasteboard(environment: [String: String]? = nil) -> Bool {
        guard let environment else {
            _ = sharedServer
            return true
        }
        guard let server = try? SystemPasteboardServer(environment: environment) else { return false }
        sharedServer = server
        return true
    }

    /// Makes `general`, `find` and new named pasteboards live in this process only (for tests).
    public static func useInMemoryPasteboard() {
        sharedServer = InMemoryPasteboardServer()
    }
}
