/// The representations of a `Transferable` type flattened into an ordered list of entries, with the
/// export and import walks that `PasteboardItem` and backends use.
package struct ResolvedTransferRepresentation<Item: Transferable>: Sendable {
    /// Every entry in declaration order, proxies spliced in.
    let entries: [TransferEntry<Item>]

    /// Flattens `Item.transferRepresentation`.
    package init() {
        var context = TransferFlattening()
        entries = context.flattening(Item.self) { context in
            Item.transferEntries(in: &context)
        }
    }

    /// The content types the entries export, first occurrence first.
    package var exportedContentTypes: [ContentType] {
        Self.unique(entries.filter { $0.export != nil }.map(\.contentType))
    }

    /// The content types the entries import, first occurrence first.
    package var importedContentTypes: [ContentType] {
        Self.unique(entries.filter { $0.import != nil }.map(\.contentType))
    }

    // MARK: - Export

    /// Exports `value` with every entry whose condition holds, in order; a content type already exported is
    /// skipped. Files stay files.
    package func export(_ value: Item) async throws -> [ExportedRepresentation] {
        var exported: [ExportedRepresentation] = []
        var seen: Set<ContentType> = []
        for entry in entries {
            guard let export = entry.export, !seen.contains(entry.contentType) else { continue }
            try Task.checkCancellation()
            guard let result = try await export(value) else { continue }
            seen.insert(entry.contentType)
            exported.append(
                ExportedRepresentation(
                    contentType: entry.contentType, payload: result.payload, suggestedFileName: result.suggestedFileName
                ))
        }
        return exported
    }

    // MARK: - Import

    /// The first importing entry, in declaration order, for which `types` holds the exact content type or
    /// else one conforming to it, with that type.
    package func importMatch(among types: [ContentType]) -> (entryIndex: Int, type: ContentType)? {
        for (index, entry) in entries.enumerated() where entry.import != nil {
            if let type = types.first(where: { $0 == entry.contentType })
                ?? types.first(where: { $0.conforms(to: entry.contentType) })
            {
                return (index, type)
            }
        }
        return nil
    }

    /// Imports a value with the entry at `entryIndex` from `payload`.
    package func importValue(entryIndex: Int, payload: TransferPayload) async throws -> sending Item {
        let entry = entries[entryIndex]
        guard let importer = entry.import else {
            preconditionFailure("importMatch(among:) returns importing entries only")
        }
        let incoming = IncomingTransfer(payload: payload, fileName: Self.fileName(for: entry))
        return try await importer(incoming)
    }

    /// The name of a temporary file for `entry`: its constant suggested name or "Pasteboard Item", with the
    /// content type's preferred extension when the name has none.
    static func fileName(for entry: TransferEntry<Item>) -> String {
        var name = entry.staticFileName.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""
        if name.isEmpty || name == "." || name == ".." { name = "Pasteboard Item" }
        let hasExtension = name.lastIndex(of: ".").map { $0 != name.startIndex } ?? false
        if !hasExtension, let fileExtension = entry.contentType.preferredFilenameExtension {
            name += "." + fileExtension
        }
        return name
    }

    private static func unique(_ types: [ContentType]) -> [ContentType] {
        var seen: Set<ContentType> = []
        return types.filter { seen.insert($0).inserted }
    }
}
