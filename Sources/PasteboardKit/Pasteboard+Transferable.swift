extension Pasteboard {
    /// Replaces the contents with one item per value, each holding every representation its value exports.
    ///
    /// ```swift
    /// try await Pasteboard.general.write([Profile(name: "Ada"), Profile(name: "Grace")])
    /// ```
    ///
    /// - Throws: `PasteboardError` when a value cannot be exported (nothing is written then) or the write fails.
    public func write<T: Transferable>(_ values: [T]) async throws {
        var items: [PasteboardItem] = []
        items.reserveCapacity(values.count)
        for value in values {
            items.append(try await PasteboardItem(exporting: value))
        }
        try setItems(items)
    }

    /// Replaces the contents with one item holding every representation `value` exports.
    ///
    /// ```swift
    /// try await Pasteboard.general.write(URL(string: "https://swift.org")!)
    /// ```
    public func write<T: Transferable>(_ value: T) async throws {
        try setItems([try await PasteboardItem(exporting: value)])
    }

    /// The first item as a `T`, or nil when the pasteboard is empty or its first item has no type `T` imports.
    ///
    /// ```swift
    /// if let profile = try await Pasteboard.general.read(Profile.self) { show(profile) }
    /// ```
    public func read<T: Transferable>(_ type: T.Type) async throws -> sending T? {
        guard let item = try items.first else { return nil }
        return try await item.value(as: type)
    }

    /// Whether `read(type)` would find a content type to import from, without importing.
    public func canRead<T: Transferable>(_ type: T.Type) throws -> Bool {
        guard let item = try items.first else { return false }
        return item.canImport(type)
    }

    /// The content types `type` can be read from, in the order reading tries them.
    public static func importedContentTypes<T: Transferable>(for type: T.Type) -> [ContentType] {
        ResolvedTransferRepresentation<T>().importedContentTypes
    }

    /// The content types writing a `type` value can produce, in order (exporting conditions may skip some).
    public static func exportedContentTypes<T: Transferable>(for type: T.Type) -> [ContentType] {
        ResolvedTransferRepresentation<T>().exportedContentTypes
    }
}
