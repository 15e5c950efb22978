/// Apple's name for a content type, so that code written against `UniformTypeIdentifiers` compiles here.
///
/// `UTType` and `ContentType` are the same type:
///
/// ```swift
/// extension UTType {
///     static let profile = UTType(exportedAs: "com.example.profile", conformingTo: .json)
/// }
/// UTType.png.preferredMIMEType  // "image/png"
/// ```
public typealias UTType = ContentType

// MARK: - Declaring with one supertype

extension ContentType {
    /// Declares a type this program owns, conforming to `parentType`, as Apple's `UTType(exportedAs:)` does.
    ///
    /// The same as `init(exportedAs:conformingTo:mimeTypes:filenameExtensions:description:)` with one supertype
    /// and no tags.
    ///
    /// ```swift
    /// extension UTType {
    ///     static let profile = UTType(exportedAs: "com.example.profile", conformingTo: .json)
    /// }
    /// ```
    public init(exportedAs identifier: String, conformingTo parentType: ContentType = .data) {
        self.init(exportedAs: identifier, conformingTo: [parentType], mimeTypes: [])
    }

    /// Declares a type another program owns, conforming to `parentType`, as Apple's `UTType(importedAs:)` does.
    ///
    /// The same as `init(importedAs:conformingTo:mimeTypes:filenameExtensions:description:)` with one supertype
    /// and no tags: an exported declaration of the same identifier wins over it.
    ///
    /// ```swift
    /// extension UTType {
    ///     static let sketch = UTType(importedAs: "com.example.sketch", conformingTo: .image)
    /// }
    /// ```
    public init(importedAs identifier: String, conformingTo parentType: ContentType = .data) {
        self.init(importedAs: identifier, conformingTo: [parentType], mimeTypes: [])
    }

    // MARK: - Tags with a required supertype

    /// The type for a filename extension, provided it conforms to `supertype`; nil otherwise.
    ///
    /// Unlike Apple's initialiser of the same name, it never makes up a dynamic type for an extension that no
    /// declared type claims: it returns nil then.
    ///
    /// ```swift
    /// UTType(filenameExtension: "png", conformingTo: .image)  // .png
    /// UTType(filenameExtension: "png", conformingTo: .text)   // nil
    /// ```
    public init?(filenameExtension: String, conformingTo supertype: ContentType) {
        guard let type = ContentType(filenameExtension: filenameExtension), type.conforms(to: supertype) else {
            return nil
        }
        self = type
    }

    /// The type for a MIME type, provided it conforms to `supertype`; nil otherwise.
    ///
    /// A MIME type no declared type claims gives a dynamic type, which conforms to `.text` for `text/*`,
    /// to `.json` or `.xml` for a `+json` or `+xml` subtype, and to `.data` otherwise.
    ///
    /// ```swift
    /// UTType(mimeType: "text/x-log", conformingTo: .text)  // a dynamic text type
    /// UTType(mimeType: "image/png", conformingTo: .text)   // nil
    /// ```
    public init?(mimeType: String, conformingTo supertype: ContentType) {
        guard let type = ContentType(mimeType: mimeType), type.conforms(to: supertype) else { return nil }
        self = type
    }
}
