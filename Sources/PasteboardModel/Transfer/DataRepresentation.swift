public import FoundationEssentials

/// A representation that converts an item to and from bytes of one content type.
///
/// ```swift
/// struct Table: Transferable {
///     var rows: [[String]]
///
///     static var transferRepresentation: some TransferRepresentation {
///         DataRepresentation(contentType: .commaSeparatedText) { table in
///             Data(table.rows.map { $0.joined(separator: ",") }.joined(separator: "\n").utf8)
///         } importing: { data in
///             Table(rows: String(decoding: data, as: UTF8.self).split(separator: "\n").map {
///                 $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
///             })
///         }
///     }
/// }
/// ```
public struct DataRepresentation<Item: Transferable>: TransferRepresentation, PrimitiveTransferRepresentation {
    let contentType: ContentType
    let exporter: (@Sendable (Item) async throws -> Data)?
    let importer: (@Sendable (Data) async throws -> Item)?

    /// A representation that both exports and imports `contentType`.
    public init(
        contentType: ContentType,
        exporting: @escaping @Sendable (Item) async throws -> Data,
        importing: @escaping @Sendable (Data) async throws -> Item
    ) {
        self.contentType = contentType
        self.exporter = exporting
        self.importer = importing
    }

    /// A representation that only exports `exportedContentType`.
    public init(exportedContentType: ContentType, exporting: @escaping @Sendable (Item) async throws -> Data) {
        self.contentType = exportedContentType
        self.exporter = exporting
        self.importer = nil
    }

    /// A representation that only imports `importedContentType`.
    public init(importedContentType: ContentType, importing: @escaping @Sendable (Data) async throws -> Item) {
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
                let data = try await TransferFailure.wrap(exporting: itemName, as: contentType) {
                    try await exporter(item)
                }
                return TransferExport(payload: .data(data))
            }
        }
        var `import`: (@Sendable (IncomingTransfer) async throws -> Item)?
        if let importer {
            `import` = { incoming in
                let data = try incoming.payload.loadData()
                return try await TransferFailure.wrap(importing: itemName, from: contentType) {
                    try await importer(data)
                }
            }
        }
        return [TransferEntry(contentType: contentType, export: export, import: `import`)]
    }
}
