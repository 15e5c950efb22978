/// A description of how a `Transferable` type converts to and from content of one or more content types.
///
/// The library provides the primitive representations `CodableRepresentation`, `DataRepresentation`,
/// `FileRepresentation` and `ProxyRepresentation`. Combine them in a `transferRepresentation` or in the
/// `body` of a representation of your own:
///
/// ```swift
/// struct ProfileRepresentation: TransferRepresentation {
///     var body: some TransferRepresentation<Profile> {
///         CodableRepresentation(contentType: Profile.contentType)
///         ProxyRepresentation(exporting: \.name)
///     }
/// }
/// ```
///
/// The `body` of a representation of your own names its item, `some TransferRepresentation<Profile>`, so
/// that Swift can infer `Item`; a `transferRepresentation` need not.
public protocol TransferRepresentation<Item>: Sendable {
    /// The type this representation transfers; every representation the library provides requires it to be
    /// `Transferable`.
    // Workaround: declaring `associatedtype Item: Transferable` here makes Swift 6.3 unable to infer
    // `Transferable.Representation` from `static var transferRepresentation: some TransferRepresentation<T>`
    // ("type 'T' does not conform to protocol 'Transferable'"); the recursive constraint between the two
    // protocols defeats associated type inference. The constraint lives on the concrete representations.
    associatedtype Item

    /// The type of the representations this one is made of.
    associatedtype Body: TransferRepresentation where Body.Item == Item

    /// The representations this one is made of, in order of preference.
    ///
    /// The library's primitive representations return themselves.
    @TransferRepresentationBuilder<Item> var body: Body { get }
}

// MARK: - Flattening

/// A representation that provides its entries directly instead of through a `body`.
///
/// The library's primitive representations conform; flattening asks them for their entries and asks
/// every other representation for its `body`.
protocol PrimitiveTransferRepresentation<Item>: TransferRepresentation {
    /// The entries, in order, with the types being flattened recorded in `context`.
    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>]
}

/// The state of one flattening: the chain of proxied types, to catch a type proxying itself.
struct TransferFlattening {
    private var path: [ObjectIdentifier] = []
    private var names: [String] = []

    init() {}

    /// Runs `body` with `type` pushed on the chain of types being flattened.
    mutating func flattening<Value, Result>(_ type: Value.Type, _ body: (inout Self) -> Result) -> Result {
        let identifier = ObjectIdentifier(type)
        // A proxy cycle would recurse until the stack overflows: it is a bug in the program's representations.
        precondition(
            !path.contains(identifier),
            "ProxyRepresentation cycle: \((names + [String(describing: type)]).joined(separator: " -> "))")
        path.append(identifier)
        names.append(String(describing: type))
        defer {
            path.removeLast()
            names.removeLast()
        }
        return body(&self)
    }
}

extension TransferRepresentation {
    /// The entries of this representation in declaration order, proxies spliced in.
    func flattenedEntries(in context: inout TransferFlattening) -> [TransferEntry<Item>] {
        if let primitive = self as? any PrimitiveTransferRepresentation<Item> {
            return primitive.primitiveEntries(in: &context)
        }
        // A non-primitive representation whose body is itself would never end.
        precondition(Body.self != Self.self, "\(Self.self) must provide a body made of other representations.")
        return body.flattenedEntries(in: &context)
    }
}
