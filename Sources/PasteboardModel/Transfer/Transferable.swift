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
///     static let contentType = ContentType(exportedAs: "com.example.profile", conformingTo: [.json])
///
///     static var transferRepresentation: some TransferRepresentation<Profile> {
///         CodableRepresentation(contentType: contentType)
///         ProxyRepresentation(exporting: \.name)
///     }
/// }
///
/// try await Pasteboard.general.write(Profile(name: "Ada", email: "ada@example.com"))
/// let profile = try await Pasteboard.general.read(Profile.self)  // the whole profile
/// let name = try await Pasteboard.general.read(String.self)      // "Ada"
/// ```
///
/// Conforming types need not be `Sendable`: the closures of their representations are `@Sendable`, and
/// values move through them within one task. The conformance itself must not be isolated to an actor
/// (`SendableMetatype`), because representations are resolved and run on any thread.
public protocol Transferable: SendableMetatype {
    /// The type of the representation that describes how values transfer.
    associatedtype Representation: TransferRepresentation where Representation.Item == Self

    /// The representations of this type, in order of preference, richest first.
    @TransferRepresentationBuilder<Self> static var transferRepresentation: Representation { get }
}
