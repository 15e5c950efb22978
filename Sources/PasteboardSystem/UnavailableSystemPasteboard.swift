import FoundationEssentials
import PasteboardHistory
import PasteboardModel

/// The system pasteboard when the display could not be opened: `general` throws the reason on every use (never
/// silently the store instead of the desktop), every other pasteboard lives in the store as usual.
struct UnavailableSystemPasteboard: PasteboardServer {
    let store: StorePasteboardServer
    let failure: any Error

    private func check(_ name: String) throws {
        if name == PasteboardName.general.rawValue {
            throw PasteboardError(.unavailable, "The system clipboard is unavailable: \(failure)", cause: failure)
        }
    }

    func contents(of name: String) throws -> PasteboardContents {
        try check(name)
        return try store.contents(of: name)
    }

    func changeCount(of name: String) throws -> Int {
        try check(name)
        return try store.changeCount(of: name)
    }

    func write(_ items: [PasteboardItem], to name: String) throws -> Int {
        try check(name)
        return try store.write(items, to: name)
    }

    func create(_ name: String, persistent: Bool) throws { try store.create(name, persistent: persistent) }
    func exists(_ name: String) throws -> Bool { try store.exists(name) }
    func isPersistent(_ name: String) throws -> Bool { try store.isPersistent(name) }
    func remove(_ name: String) throws { try store.remove(name) }
    func changes(of name: String) -> AsyncStream<Int> { store.changes(of: name) }
}
