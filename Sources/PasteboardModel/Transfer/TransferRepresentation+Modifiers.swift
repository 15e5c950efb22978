extension TransferRepresentation {
    /// The same representation, skipped when exporting an item for which `condition` is false.
    ///
    /// Importing is unaffected.
    ///
    /// ```swift
    /// DataRepresentation(exportedContentType: .html) { Data($0.html!.utf8) }
    ///     .exportingCondition { $0.html != nil }
    /// ```
    public func exportingCondition(_ condition: @escaping @Sendable (Item) -> Bool) -> some TransferRepresentation<Item>
    {
        ModifiedTransferRepresentation(base: self, transform: EntryTransform.exportingCondition(condition))
    }

    /// The same representation, suggesting `fileName` to receivers that save the content as a file.
    ///
    /// The name also names the temporary file a `FileRepresentation` importer receives; when it has no
    /// extension, the content type's preferred one is added there. An outer suggestion replaces an inner one.
    ///
    /// ```swift
    /// FileRepresentation(exportedContentType: .pdf) { SentTransferredFile($0.url) }
    ///     .suggestedFileName("Invoice.pdf")
    /// ```
    public func suggestedFileName(_ fileName: String) -> some TransferRepresentation<Item> {
        ModifiedTransferRepresentation(base: self, transform: EntryTransform.suggestedFileName(fileName))
    }

    /// The same representation, suggesting a file name computed from each exported item.
    ///
    /// When `fileName` returns nil, an inner suggestion, if any, stays.
    ///
    /// ```swift
    /// FileRepresentation(exportedContentType: .pdf) { SentTransferredFile($0.url) }
    ///     .suggestedFileName { "\($0.title).pdf" }
    /// ```
    public func suggestedFileName(_ fileName: @escaping @Sendable (Item) -> String?) -> some TransferRepresentation<
        Item
    > {
        ModifiedTransferRepresentation(base: self, transform: EntryTransform.suggestedFileName(fileName))
    }
}

/// The changes modifiers make to each entry of the representation they modify.
enum EntryTransform<Item> {
    typealias Transform = @Sendable (TransferEntry<Item>) -> TransferEntry<Item>
    typealias Export = @Sendable (Item) async throws -> TransferExport?

    static func exportingCondition(_ condition: @escaping @Sendable (Item) -> Bool) -> Transform {
        { entry in
            guard let export = entry.export else { return entry }
            let conditional: Export = { item in
                guard condition(item) else { return nil }
                return try await export(item)
            }
            return entry.with(export: conditional, staticFileName: entry.staticFileName)
        }
    }

    static func suggestedFileName(_ fileName: String) -> Transform {
        { entry in
            guard let export = entry.export else { return entry.with(export: nil, staticFileName: fileName) }
            let named: Export = { item in
                guard var exported = try await export(item) else { return nil }
                exported.suggestedFileName = fileName
                return exported
            }
            return entry.with(export: named, staticFileName: fileName)
        }
    }

    static func suggestedFileName(_ fileName: @escaping @Sendable (Item) -> String?) -> Transform {
        { entry in
            guard let export = entry.export else { return entry }
            let named: Export = { item in
                guard var exported = try await export(item) else { return nil }
                exported.suggestedFileName = fileName(item) ?? exported.suggestedFileName
                return exported
            }
            return entry.with(export: named, staticFileName: entry.staticFileName)
        }
    }
}

/// A representation whose entries are those of `base`, each transformed by `transform`.
struct ModifiedTransferRepresentation<Base: TransferRepresentation>: PrimitiveTransferRepresentation {
    typealias Item = Base.Item

    let base: Base
    let transform: @Sendable (TransferEntry<Item>) -> TransferEntry<Item>

    var body: Self { self }

    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>] {
        base.flattenedEntries(in: &context).map(transform)
    }
}
