public import FoundationEssentials

/// A representation that encodes a `Codable` item, as JSON unless told otherwise.
///
/// Use a custom content type that conforms to the format, so that readers which only know the format can
/// still read it:
///
/// ```swift
/// extension UTType {
///     static let profile = UTType(exportedAs: "com.example.profile", conformingTo: .json)
/// }
///
/// struct Profile: Codable, Transferable {
///     var name: String
///     static var transferRepresentation: some TransferRepresentation {
///         CodableRepresentation(contentType: .profile)
///     }
/// }
/// ```
public struct CodableRepresentation<Item: Transferable & Codable, Encoder: TransferEncoder, Decoder: TransferDecoder>:
    TransferRepresentation, PrimitiveTransferRepresentation
{
    let contentType: ContentType
    let encoder: Encoder
    let decoder: Decoder

    /// A representation that encodes with `encoder` and decodes with `decoder`.
    public init(for itemType: Item.Type = Item.self, contentType: ContentType, encoder: Encoder, decoder: Decoder) {
        self.contentType = contentType
        self.encoder = encoder
        self.decoder = decoder
    }

    /// The representation itself: it is primitive.
    public var body: Self { self }

    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>] {
        let (contentType, encoder, decoder) = (contentType, encoder, decoder)
        let itemName = TransferFailure.name(of: Item.self)
        let export: @Sendable (Item) async throws -> TransferExport? = { item in
            let data = try await TransferFailure.wrap(exporting: itemName, as: contentType) {
                try encoder.encode(item)
            }
            return TransferExport(payload: .data(data))
        }
        let `import`: @Sendable (IncomingTransfer) async throws -> Item = { incoming in
            let data = try incoming.payload.loadData()
            return try await TransferFailure.wrap(importing: itemName, from: contentType) {
                try Self.decode(data, with: decoder)
            }
        }
        return [TransferEntry(contentType: contentType, export: export, import: `import`)]
    }

    /// Decodes an item; the type comes from the generic context rather than a captured metatype.
    private static func decode(_ data: Data, with decoder: Decoder) throws -> Item {
        try decoder.decode(Item.self, from: data)
    }
}

extension CodableRepresentation where Encoder == JSONEncoder, Decoder == JSONDecoder {
    /// A representation that encodes as JSON (keys sorted) with a `JSONEncoder` and a default `JSONDecoder`.
    public init(for itemType: Item.Type = Item.self, contentType: ContentType) {
        // Sorted keys make the bytes the same in every process: a default JSONEncoder's key order varies from
        // run to run on Linux, so the same value copied twice was recorded as two different history items.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        self.init(for: itemType, contentType: contentType, encoder: encoder, decoder: JSONDecoder())
    }
}
