public import FoundationEssentials
import SystemSupport

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
    /// One representation: a content type and its bytes, held in memory or in a file.
    ///
    /// A file-backed representation keeps large payloads out of memory: its bytes are read only when `data`
    /// is asked for, and stores and transfers copy the file in chunks.
    public struct Representation: Sendable, Hashable {
        /// Two representations are equal when their types and bytes are, wherever the bytes are kept.
        public static func == (lhs: Representation, rhs: Representation) -> Bool {
            guard lhs.type == rhs.type, lhs.byteCount == rhs.byteCount else { return false }
            if case .file(let left, _) = lhs.storage, case .file(let right, _) = rhs.storage, left == right { return true }
            return lhs.data == rhs.data
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(type)
            hasher.combine(byteCount)
        }

        enum Storage: Sendable, Hashable {
            case bytes(Data)
            case file(URL, size: Int)
        }

        public let type: ContentType
        let storage: Storage
        /// For a file the store has not hashed yet: run before the bytes are first read (see `PayloadVerifier`).
        let check: PayloadVerifier?

        /// A representation holding `data` in memory.
        public init(type: ContentType, data: Data) {
            self.type = type
            self.storage = .bytes(data)
            self.check = nil
        }

        /// A representation whose bytes are the file at `fileURL` (not read now).
        public init(type: ContentType, fileURL: URL) throws {
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path)
            } catch {
                throw PasteboardError(.storage, "Cannot read \(fileURL.path): no such file or no permission.")
            }
            guard (attributes[.type] as? FileAttributeType) != .typeDirectory else {
                throw PasteboardError(.storage, "\(fileURL.path) is a directory, not a file.")
            }
            self.type = type
            self.storage = .file(fileURL, size: attributes.fileSize)
            self.check = nil
        }

        /// A representation whose bytes are the file at `fileURL`, of `size` bytes, which `check` vouches for when
        /// they are first read (`contents()`, `verify()`); nothing is read now.
        public init(type: ContentType, fileURL: URL, size: Int, check: PayloadVerifier) {
            self.type = type
            self.storage = .file(fileURL, size: size)
            self.check = check
        }

        /// Runs the representation's payload check, if it has one (once for every copy of it): throws when the file
        /// no longer holds the bytes it was stored with. A reader that streams `fileURL` itself calls this first.
        public func verify() throws(PasteboardError) {
            try check?.verify()
        }

        /// The bytes (read from the file for a file-backed representation; empty if the file cannot be read:
        /// `contents()` says why, and `PasteboardItem.data(forType:)` answers nil then).
        public var data: Data {
            switch storage {
            case .bytes(let data): return data
            case .file:
                do { return try contents() } catch { return Data() }
            }
        }

        /// The bytes, or why a file-backed representation's file cannot be read.
        public func contents() throws(PasteboardError) -> Data {
            switch storage {
            case .bytes(let data): return data
            case .file(let url, _):
                try verify()
                do {
                    return try Data(contentsOf: url)
                } catch {
                    throw PasteboardError(.storage, "Cannot read \(url.path): \(SystemError.reason(of: error))", cause: error)
                }
            }
        }

        /// The file holding the bytes, for a file-backed representation.
        public var fileURL: URL? {
            if case .file(let url, _) = storage { return url }
            return nil
        }

        /// The size in bytes, without reading a file.
        public var byteCount: Int {
            switch storage {
            case .bytes(let data): return data.count
            case .file(_, let size): return size
            }
        }

        /// At most the first `count` bytes, reading no more of a file than that (and not running the payload check,
        /// which reads the whole file: for previews, never for what is served).
        public func prefix(_ count: Int) -> Data {
            switch storage {
            case .bytes(let data): return data.prefix(count)
            case .file(let url, _):
                guard let file = try? ReadableFile(path: url.path) else { return Data() }
                return (try? file.read(upToCount: count)) ?? Data()
            }
        }
    }

    /// The representations, in the writer's order of preference.
    public private(set) var representations: [Representation]

    /// An empty item.
    public init() { representations = [] }

    /// An item with the given representations; a later duplicate of a type replaces the earlier one.
    public init(_ representations: [Representation]) {
        self.representations = []
        for representation in representations { setRepresentation(representation) }
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

    /// The item with its plain text alone ("paste as plain text"): its UTF-8 text, else its plain text; nil when it
    /// has neither. The representation is kept as it is (a stored payload is not read).
    public var plainTextOnly: PasteboardItem? {
        for type in [ContentType.utf8PlainText, .plainText] {
            if let text = representations.first(where: { $0.type == type }) { return PasteboardItem([text]) }
        }
        return nil
    }

    /// The total size of all representations in bytes.
    public var byteCount: Int { representations.reduce(0) { $0 + $1.byteCount } }

    /// Whether the item has no representation.
    public var isEmpty: Bool { representations.isEmpty }

    /// Sets or replaces the bytes for `type`.
    public mutating func setData(_ data: Data, forType type: ContentType) {
        setRepresentation(Representation(type: type, data: data))
    }

    /// Sets or replaces the representation of its type.
    public mutating func setRepresentation(_ representation: Representation) {
        if let index = representations.firstIndex(where: { $0.type == representation.type }) {
            representations[index] = representation
        } else {
            representations.append(representation)
        }
    }

    /// Sets or replaces the representation of `type` with the file at `fileURL`, which is not read now.
    public mutating func setFile(_ fileURL: URL, forType type: ContentType) throws {
        setRepresentation(try Representation(type: type, fileURL: fileURL))
    }

    /// The representation of exactly `type`, or else of the first type conforming to it.
    public func representation(forType type: ContentType) -> Representation? {
        representations.first(where: { $0.type == type }) ?? representations.first(where: { $0.type.conforms(to: type) })
    }

    /// Sets UTF-8 text.
    public mutating func setString(_ string: String, forType type: ContentType = .utf8PlainText) {
        setData(Data(string.utf8), forType: type)
    }

    /// Removes the representation of `type`.
    public mutating func removeData(forType type: ContentType) {
        representations.removeAll { $0.type == type }
    }

    /// The bytes stored exactly for `type`, or else for the first type that conforms to it; nil when there is none,
    /// or when its file can no longer be read.
    public func data(forType type: ContentType) -> Data? {
        let representation =
            representations.first(where: { $0.type == type }) ?? representations.first(where: { $0.type.conforms(to: type) })
        guard let representation else { return nil }
        do { return try representation.contents() } catch { return nil }
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
