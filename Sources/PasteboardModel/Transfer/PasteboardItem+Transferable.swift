import FoundationEssentials

extension PasteboardItem {
    /// An item holding every representation `value` exports, in declaration order.
    ///
    /// Representations whose exporting condition is false are skipped, proxies contribute their own
    /// representations at their position, and when two representations have the same content type the first
    /// wins. A file a `FileRepresentation` exports is read into the item.
    ///
    /// ```swift
    /// let item = try await PasteboardItem(exporting: profile)
    /// item.types  // [com.example.profile, public.utf8-plain-text]
    /// ```
    ///
    /// - Throws: `PasteboardError` with code `.conversion` when an exporter fails or nothing is exported.
    public init<T: Transferable>(exporting value: T) async throws {
        let exported = try await ResolvedTransferRepresentation<T>().export(value)
        guard !exported.isEmpty else {
            throw PasteboardError(
                .conversion,
                "\(T.self) has no representation to export for this value: every exporting representation was "
                    + "skipped by its exporting condition, or the type only declares importing ones.")
        }
        var representations: [Representation] = []
        representations.reserveCapacity(exported.count)
        for representation in exported {
            try Task.checkCancellation()
            // A file stays a file: stores and transfers copy it in chunks, never holding it whole.
            if case .file(let url, _) = representation.payload {
                representations.append(try Representation(type: representation.contentType, fileURL: url))
            } else {
                representations.append(
                    Representation(type: representation.contentType, data: try representation.payload.loadData()))
            }
        }
        self.init(representations)
    }

    /// The item's content as a `T`, or nil when the item has no content type `T` imports.
    ///
    /// `T`'s importing representations are tried in declaration order; the first one whose content type the
    /// item holds (exactly, or else through a representation that conforms to it) is used. A
    /// `FileRepresentation` importer receives a temporary file that is deleted when it returns.
    ///
    /// ```swift
    /// let profile = try await item.value(as: Profile.self)
    /// let name = try await item.value(as: String.self)
    /// ```
    ///
    /// - Throws: `PasteboardError` with code `.conversion` when the chosen importer fails, for example
    ///   because the bytes are not a valid encoding of `T`.
    public func value<T: Transferable>(as type: T.Type) async throws -> sending T? {
        let resolved = ResolvedTransferRepresentation<T>()
        guard let match = resolved.importMatch(among: types), let representation = representation(forType: match.type) else {
            return nil
        }
        if let url = representation.fileURL {
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw PasteboardError(.unavailable, "The \(match.type.identifier) payload's file is gone: \(url.path).")
            }
            return try await resolved.importValue(entryIndex: match.entryIndex, payload: .file(url, allowsAccessingOriginal: false))
        }
        return try await resolved.importValue(entryIndex: match.entryIndex, payload: .data(representation.data))
    }

    /// Whether the item has a content type that `type` imports.
    public func canImport<T: Transferable>(_ type: T.Type) -> Bool {
        ResolvedTransferRepresentation<T>().importMatch(among: types) != nil
    }
}
