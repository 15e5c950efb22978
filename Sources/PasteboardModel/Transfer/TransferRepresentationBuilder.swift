/// Builds a representation from several representations of the same item, keeping their order.
///
/// You use it implicitly in `transferRepresentation` and in `body`: each line is one representation, and
/// earlier lines take precedence over later ones.
///
/// ```swift
/// static var transferRepresentation: some TransferRepresentation {
///     CodableRepresentation(contentType: .note)  // preferred
///     ProxyRepresentation(exporting: \.text)     // fallback for text fields
/// }
/// ```
@resultBuilder
public struct TransferRepresentationBuilder<Item> {
    /// Accepts one representation of `Item`.
    public static func buildExpression<Content: TransferRepresentation>(_ content: Content) -> Content
    where Content.Item == Item {
        content
    }

    /// Starts a block with its first representation.
    public static func buildPartialBlock<Content: TransferRepresentation>(first content: Content) -> Content
    where Content.Item == Item {
        content
    }

    /// Appends the next representation to those before it.
    public static func buildPartialBlock<Accumulated: TransferRepresentation, Next: TransferRepresentation>(
        accumulated: Accumulated, next: Next
    ) -> TupleTransferRepresentation<Item, Accumulated, Next> where Accumulated.Item == Item, Next.Item == Item {
        TupleTransferRepresentation(accumulated, next)
    }
}

/// Two representations of the same item in order, as built by `TransferRepresentationBuilder`.
public struct TupleTransferRepresentation<Item, First: TransferRepresentation, Second: TransferRepresentation>:
    TransferRepresentation, PrimitiveTransferRepresentation
where First.Item == Item, Second.Item == Item {
    let first: First
    let second: Second

    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    /// The representation itself: it is made of `first` and `second`.
    public var body: Self { self }

    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>] {
        first.flattenedEntries(in: &context) + second.flattenedEntries(in: &context)
    }
}
