/// A representation that moves an item as a file, for content too large to hold in memory.
///
/// The exporter names a file; the importer receives one (see `ReceivedTransferredFile`), which it must
/// copy if it keeps it, because a temporary copy is deleted when the importer returns.
///
/// ```swift
/// struct Video: Transferable {
///     var url: URL
///
///     static var transferRepresentation: some TransferRepresentation {
///         FileRepresentation(contentType: .quickTimeMovie) { video in
///             SentTransferredFile(video.url)
///         } importing: { received in
///             Video(url: try received.copy(to: .moviesDirectory))
///         }
///         .suggestedFileName("video.mov")
///     }
/// }
/// ```
public struct FileRepresentation<Item: Transferable>: TransferRepresentation, PrimitiveTransferRepresentation {
    let contentType: ContentType
    let exporter: (@Sendable (Item) async throws -> SentTransferredFile)?
    let importer: (@Sendable (ReceivedTransferredFile) async throws -> Item)?

    /// A representation that both exports and imports files of `contentType`.
    public init(
        contentType: ContentType,
        exporting: @escaping @Sendable (Item) async throws -> SentTransferredFile,
        importing: @escaping @Sendable (ReceivedTransferredFile) async throws -> Item
    ) {
        self.contentType = contentType
        self.exporter = exporting
        self.importer = importing
    }

    /// A representation that only exports files of `exportedContentType`.
    public init(
        exportedContentType: ContentType,
        exporting: @escaping @Sendable (Item) async throws -> SentTransferredFile
    ) {
        self.contentType = exportedContentType
        self.exporter = exporting
        self.importer = nil
    }

    /// A representation that only imports files of `importedContentType`.
    public init(
        importedContentType: ContentType,
        importing: @escaping @Sendable (ReceivedTransferredFile) async throws -> Item
    ) {
        self.contentType = importedContentType
        self.exporter = nil
        self.importer = importing
    }

    /// The representation itself: it is primitive.
    public var body: Self { self }

    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>] {
        let contentType = contentType
        let itemName = TransferFailure.name(of: Item.self)
        var export: (@Sendable (Item) async throws -> TransferExport?)?
        if let exporter {
            export = { item in
                let sent = try await TransferFailure.wrap(exporting: itemName, as: contentType) {
                    try await exporter(item)
                }
                return TransferExport(
                    payload: .file(sent.file, allowsAccessingOriginal: sent.allowAccessingOriginalFile),
                    suggestedFileName: sent.file.lastPathComponent)
            }
        }
        var `import`: (@Sendable (IncomingTransfer) async throws -> Item)?
        if let importer {
            `import` = { incoming in
                try await incoming.payload.withReceivedFile(named: incoming.fileName) { received in
                    try await TransferFailure.wrap(importing: itemName, from: contentType) {
                        try await importer(received)
                    }
                }
            }
        }
        return [TransferEntry(contentType: contentType, export: export, import: `import`)]
    }
}
