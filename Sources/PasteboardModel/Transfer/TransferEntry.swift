/// One flattened representation: a content type with how to export an item to it and how to import one.
///
/// Entries are what every representation reduces to. Modifiers wrap the closures: an exporting
/// condition makes `export` return nil, a suggested file name fills in `TransferExport.suggestedFileName`.
struct TransferEntry<Item>: Sendable {
    /// The content type of the payloads this entry produces and accepts.
    let contentType: ContentType

    /// Exports an item; nil when the entry is skipped for this item (an exporting condition is false).
    let export: (@Sendable (Item) async throws -> TransferExport?)?

    /// Makes an item from a payload of `contentType`.
    let `import`: (@Sendable (IncomingTransfer) async throws -> Item)?

    /// The file name known without an item, used to name the file an importer receives.
    let staticFileName: String?

    init(
        contentType: ContentType,
        export: (@Sendable (Item) async throws -> TransferExport?)?,
        import: (@Sendable (IncomingTransfer) async throws -> Item)?,
        staticFileName: String? = nil
    ) {
        self.contentType = contentType
        self.export = export
        self.import = `import`
        self.staticFileName = staticFileName
    }

    /// The same entry with other closures or file name.
    func with(
        export: (@Sendable (Item) async throws -> TransferExport?)?,
        staticFileName: String?
    ) -> Self {
        TransferEntry(contentType: contentType, export: export, import: self.import, staticFileName: staticFileName)
    }
}

/// What one entry exported for one item.
package struct TransferExport: Sendable {
    /// The content, as bytes or as a file.
    package var payload: TransferPayload
    /// The name a receiver should give the content if it saves it as a file.
    package var suggestedFileName: String?

    /// An export of `payload`, with the file name to suggest if any.
    package init(payload: TransferPayload, suggestedFileName: String? = nil) {
        self.payload = payload
        self.suggestedFileName = suggestedFileName
    }
}

/// A payload arriving for an importer, with the name to give it if the importer wants a file.
package struct IncomingTransfer: Sendable {
    /// The content, as bytes or as a file.
    package var payload: TransferPayload
    /// The file name for a temporary file holding `payload`, extension included.
    package var fileName: String

    /// A payload to import, named `fileName` if it becomes a file.
    package init(payload: TransferPayload, fileName: String) {
        self.payload = payload
        self.fileName = fileName
    }
}

/// One representation exported from a value, before it becomes part of a `PasteboardItem`.
package struct ExportedRepresentation: Sendable {
    /// The content type of the payload.
    package var contentType: ContentType
    /// The content, as bytes or as a file.
    package var payload: TransferPayload
    /// The name a receiver should give the content if it saves it as a file.
    package var suggestedFileName: String?
}
