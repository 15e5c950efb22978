/// A type whose values can be copied to and pasted from a pasteboard in several content types.
///
/// A conforming type lists its representations in `transferRepresentation`, richest first. Writing a
/// value exports every representation whose exporting condition holds; reading walks the importing
/// representations in the same order and uses the first one whose content type the pasteboard item has.
///
/// ```swift
/// struct Profile: Codable, Transferable {
///     var name: String
///     var email: String
///
///     static var transferRepresentation: some TransferRepresentation {
///         CodableRepresentation(contentType: .profile)
///         ProxyRepresentation(exporting: \.name)
///     }
/// }
///
/// extension UTType {
///     static let profile = UTType(exportedAs: "com.example.profile", conformingTo: .json)
/// }
///
/// try await Pasteboard.general.write(Profile(name: "Ada", email: "ada@example.com"))
/// let profile = try await Pasteboard.general.read(Profile.self)  // the whole profile
/// let name = try await Pasteboard.general.read(String.self)      // "Ada"
/// ```
///
/// Spelling the item type, `some TransferRepresentation<Profile>`, works as well.
///
/// Conforming types need not be `Sendable`: the closures of their representations are `@Sendable`, and
/// values move through them within one task. The conformance itself must not be isolated to an actor
/// (`SendableMetatype`), because representations are resolved and run on any thread.
public protocol Transferable: SendableMetatype {
    /// The type of the representation that describes how values transfer.
    ///
    /// Swift infers it from `transferRepresentation`. Its `Item` is `Self`: the builder accepts only
    /// representations of `Self`. The protocol cannot say so with `where Representation.Item == Self`,
    /// because then `some TransferRepresentation` without a generic argument would not conform, as it does
    /// with Apple's frameworks; the library checks it when it first resolves the representations instead.
    associatedtype Representation: TransferRepresentation

    /// The representations of this type, in order of preference, richest first.
    @TransferRepresentationBuilder<Self> static var transferRepresentation: Representation { get }
}

extension Transferable {
    /// The entries of `transferRepresentation` in declaration order, proxies spliced in.
    static func transferEntries(in context: inout TransferFlattening) -> [TransferEntry<Self>] {
        let entries = transferRepresentation.flattenedEntries(in: &context)
        // The builder only takes representations of `Self`; a body that bypasses it with an explicit
        // `return` of another item's representation is a bug in the conforming type.
        guard let typed = entries as? [TransferEntry<Self>] else {
            preconditionFailure(
                "\(Self.self).transferRepresentation describes \(Representation.Item.self), not \(Self.self).")
        }
        return typed
    }
}
