public import Foundation
@_exported public import PasteboardModel
import PasteboardSystem
import Synchronization

/// A named pasteboard holding items, modelled on `UIPasteboard`/`NSPasteboard`.
///
/// ```swift
/// let board = Pasteboard.general
/// try board.setItems([PasteboardItem(string: "hello")])
/// try board.string  // "hello"
/// for await count in board.changes { print("changed:", count) }
/// ```
public final class Pasteboard: Sendable {
    /// A pasteboard's name.
    public typealias Name = PasteboardName

    /// The pasteboard's name.
    public let name: Name
    /// Where its contents live.
    public let server: any PasteboardServer

    /// The server chosen for this process, made on first use: the system clipboard (see `SystemPasteboardServer`).
    private static let defaultServer = Mutex<(any PasteboardServer)?>(nil)

    /// The server used by `general`, `find` and named pasteboards created without an explicit server.
    ///
    /// By default `general` is the system clipboard (X11 `CLIPBOARD` with a display, else the history store)
    /// and named pasteboards are shared by every process of the user, as on iOS. Tests may choose an
    /// `InMemoryPasteboardServer` instead, explicitly.
    public static var sharedServer: any PasteboardServer {
        get {
            defaultServer.withLock { server in
                if let server { return server }
                let made = SystemPasteboardServer.standard()
                server = made
                return made
            }
        }
        set { defaultServer.withLock { $0 = newValue } }
    }

    /// The general (system) pasteboard.
    public static var general: Pasteboard { Pasteboard(name: .general, server: sharedServer) }
    /// The find pasteboard.
    public static var find: Pasteboard { Pasteboard(name: .find, server: sharedServer) }

    /// A pasteboard on an explicit server, without creating it.
    public init(name: Name, server: any PasteboardServer) {
        self.name = name
        self.server = server
    }

    /// The named pasteboard; with `create` false, nil when it does not exist yet.
    public convenience init?(name: Name, create: Bool = true, persistent: Bool = true, server: (any PasteboardServer)? = nil) throws {
        let server = server ?? Pasteboard.sharedServer
        if create {
            try server.create(name.rawValue, persistent: persistent)
        } else if try !server.exists(name.rawValue) {
            return nil
        }
        self.init(name: name, server: server)
    }

    /// A new pasteboard with a unique name, not persistent: it disappears when this process exits.
    public static func withUniqueName(server: (any PasteboardServer)? = nil) throws -> Pasteboard {
        let server = server ?? sharedServer
        let name = Name("unique.\(UUID().uuidString.lowercased())")
        try server.create(name.rawValue, persistent: false)
        return Pasteboard(name: name, server: server)
    }

    // MARK: - Reading

    /// The items, in order.
    public var items: [PasteboardItem] { get throws { try server.contents(of: name.rawValue).items } }

    /// Increases on every change of the contents, across every process sharing the server.
    public var changeCount: Int { get throws { try server.changeCount(of: name.rawValue) } }

    /// The types of the first item.
    public var types: [ContentType] { get throws { try items.first?.types ?? [] } }

    /// The first item's text.
    public var string: String? { get throws { try items.first?.string } }

    /// The first item's bytes for `type` (or a type conforming to it).
    public func data(forType type: ContentType) throws -> Data? {
        try items.first?.data(forType: type)
    }

    /// Whether some item offers `type` or a type conforming to it.
    public func contains(_ type: ContentType) throws -> Bool {
        try items.contains { $0.bestType(among: [type]) != nil }
    }

    /// Whether the pasteboard outlives the process that created it.
    public var isPersistent: Bool { get throws { try server.isPersistent(name.rawValue) } }

    /// Change counts as the contents change.
    public var changes: AsyncStream<Int> { server.changes(of: name.rawValue) }

    // MARK: - Writing

    /// Replaces the contents with `items`; returns the new change count.
    @discardableResult
    public func setItems(_ items: [PasteboardItem]) throws -> Int {
        try server.write(items, to: name.rawValue)
    }

    /// Replaces the contents with one text item.
    @discardableResult
    public func setString(_ string: String) throws -> Int {
        try setItems([PasteboardItem(string: string)])
    }

    /// Replaces the contents with one item of `type`.
    @discardableResult
    public func setData(_ data: Data, forType type: ContentType) throws -> Int {
        try setItems([PasteboardItem(data: data, type: type)])
    }

    /// Empties the pasteboard (a change like any other).
    @discardableResult
    public func clearContents() throws -> Int { try setItems([]) }

    /// Removes a named pasteboard.
    public func release() throws { try server.remove(name.rawValue) }
}
