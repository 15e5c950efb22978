/// A representation that transfers an item as another `Transferable` value, using that value's own
/// representations at this position.
///
/// ```swift
/// struct Profile: Codable, Transferable {
///     var name: String
///     static var transferRepresentation: some TransferRepresentation {
///         CodableRepresentation(contentType: .profile)
///         ProxyRepresentation(exporting: \.name)  // pastes as the name in a text field
///     }
/// }
/// ```
public struct ProxyRepresentation<Item: Transferable, Proxy: Transferable>:
    TransferRepresentation, PrimitiveTransferRepresentation
{
    let exporter: @Sendable (Item) async throws -> Proxy
    let importer: (@Sendable (Proxy) async throws -> Item)?

    /// A representation that exports an item as the proxy `exporting` returns, and never imports.
    public init(exporting: @escaping @Sendable (Item) async throws -> Proxy) {
        self.exporter = exporting
        self.importer = nil
    }

    /// A representation that exports an item as a proxy and imports one from a proxy.
    public init(
        exporting: @escaping @Sendable (Item) async throws -> Proxy,
        importing: @escaping @Sendable (Proxy) async throws -> Item
    ) {
        self.exporter = exporting
        self.importer = importing
    }

    /// The representation itself: it is primitive.
    public var body: Self { self }

    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>] {
        let proxyEntries = context.flattening(Proxy.self) { context in
            Proxy.transferEntries(in: &context)
        }
        return proxyEntries.compactMap(splice)
    }

    /// The entry of this representation standing for `proxyEntry`; nil when it neither exports nor imports.
    private func splice(_ proxyEntry: TransferEntry<Proxy>) -> TransferEntry<Item>? {
        let (exporter, importer) = (exporter, importer)
        let contentType = proxyEntry.contentType
        let itemName = TransferFailure.name(of: Item.self)
        var export: (@Sendable (Item) async throws -> TransferExport?)?
        if let proxyExport = proxyEntry.export {
            export = { item in
                let proxy = try await TransferFailure.wrap(exporting: itemName, as: contentType) {
                    try await exporter(item)
                }
                return try await proxyExport(proxy)
            }
        }
        var `import`: (@Sendable (IncomingTransfer) async throws -> Item)?
        if let importer, let proxyImport = proxyEntry.import {
            `import` = { incoming in
                let proxy = try await proxyImport(incoming)
                return try await TransferFailure.wrap(importing: itemName, from: contentType) {
                    try await importer(proxy)
                }
            }
        }
        guard export != nil || `import` != nil else { return nil }
        return TransferEntry(
            contentType: contentType, export: export, import: `import`, staticFileName: proxyEntry.staticFileName)
    }
}
