public import Foundation

/// One logical item on a pasteboard, holding the same content in several typed representations.
///
/// Representations are kept in the order the writer gave them, richest first, and each content type
/// appears at most once.
/// ```swift
/// var item = PasteboardItem()
/// item.setData(Data("<b>hi</b>".utf8), forType: .html)
/// item.setString("hi")
/// item.bestType(among: [.html, .plainText])  // .html
/// ```
public struct PasteboardItem: Sendable, Hashable {
    /// One representation: a content type and its bytes.
    public struct Representation: Sendable, Hashable {
        public let type: ContentType
        public let data: Data

        public init(type: ContentType, data: Data) {
            self.type = type
            self.data = data
        }
    }

    /// The representations, in the writer's order of preference.
    public private(set) var representations: [Representation]

    /// An empty item.
    public init() { representations = [] }

    /// An item with the given representations; a later duplicate of a type replaces the earlier one.
    public init(_ representations: [Representation]) {
        self.representations = []
        for representation in representations { setData(representation.data, forType: representation.type) }
    }

    /// An item holding one representation.
    public init(data: Data, type: ContentType) {
        self.init([Representation(type: type, data: data)])
    }

    /// An item holding UTF-8 text.
    public init(string: String) {
        self.init(data: Data(string.utf8), type: .utf8PlainText)
    }

    /// The content types present, in order.
    public var types: [ContentType] { representations.map(\.type) }

    /// The total size of all representations in bytes.
    public var byteCount: Int { representations.reduce(0) { $0 + $1.data.count } }

    /// Whether the item has no representation.
    public var isEmpty: Bool { representations.isEmpty }

    /// Sets or replaces the bytes for `type`.
    public mutating func setData(_ data: Data, forType type: ContentType) {
        if let index = representations.firstIndex(where: { $0.type == type }) {
            representations[index] = Representation(type: type, data: data)
        } else {
            representations.append(Representation(type: type, data: data))
        }
    }

    /// Sets UTF-8 text.
    public mutating func setString(_ string: String, forType type: ContentType = .utf8PlainText) {
        setData(Data(string.utf8), forType: type)
    }

    /// Removes the representation of `type`.
    public mutating func removeData(forType type: ContentType) {
        representations.removeAll { $0.type == type }
    }

    /// The bytes stored exactly for `type`, or else for the first type that conforms to it.
    public func data(forType type: ContentType) -> Data? {
        if let exact = representations.first(where: { $0.type == type }) { return exact.data }
        return representations.first(where: { $0.type.conforms(to: type) })?.data
    }

    /// The richest type present that the reader accepts.
    ///
    /// The reader lists what it accepts in its own order of preference (HTML before plain text);
    /// the first accepted type that some representation provides wins.
    public func bestType(among accepted: [ContentType]) -> ContentType? {
        for wanted in accepted {
            if let exact = representations.first(where: { $0.type == wanted }) { return exact.type }
            if let conforming = representations.first(where: { $0.type.conforms(to: wanted) }) {
                return conforming.type
            }
        }
        return nil
    }

    /// The item's text, from its best plain-text representation, decoded as UTF-8 (invalid bytes replaced).
    public var string: String? {
        let candidates: [ContentType] = [.utf8PlainText, .plainText, .url, .text]
        guard let type = bestType(among: candidates), let data = data(forType: type) else { return nil }
        if type == .utf16PlainText { return String(data: data, encoding: .utf16) }
        return String(decoding: data, as: UTF8.self)
    }
}
