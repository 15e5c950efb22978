import Synchronization

/// A uniform type identifier for pasteboard content, such as `public.png` or `public.utf8-plain-text`.
///
/// Types form a conformance graph modelled on Apple's `UTType`: `public.png` conforms to `public.image`,
/// which conforms to `public.data`, which conforms to `public.item`. Every type maps to MIME types and
/// filename extensions where it has them, and custom types can be declared at run time.
///
/// ```swift
/// let png = ContentType(mimeType: "image/png")      // .png
/// png?.conforms(to: .image)                         // true
/// ContentType(filenameExtension: "JPG")             // .jpeg
/// let profile = ContentType(exportedAs: "com.example.profile", conformingTo: .json)
/// profile.isText                                    // true
/// ```
///
/// `UTType` names the same type, so code written for Apple's `UniformTypeIdentifiers` compiles unchanged.
///
/// Two values are equal when their identifiers are equal, byte for byte. A value encodes as a single
/// string, its identifier.
public struct ContentType: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The type's identifier, for example `public.png`.
    public let identifier: String

    /// The type with `identifier`, whether or not it is declared.
    public init(_ identifier: String) {
        self.identifier = identifier
    }

    /// The type for a MIME type, case-insensitively; nil when `mimeType` is not of the form `type/subtype`.
    ///
    /// Parameters are ignored except a `charset` of `text/plain`: UTF-8 gives `.utf8PlainText` and UTF-16
    /// gives `.utf16PlainText`. A well-formed MIME type that no declared type claims gives a dynamic type
    /// whose identifier is `dyn.mime.` followed by the lowercased MIME type. (A name offered by an application
    /// keeps its parameters and spelling with `init(offeredName:)` instead.)
    ///
    /// ```swift
    /// ContentType(mimeType: "text/plain; charset=\"UTF-8\"")  // .utf8PlainText
    /// ContentType(mimeType: "application/x-foo")?.identifier  // "dyn.mime.application/x-foo"
    /// ```
    public init?(mimeType: String) {
        guard let mediaType = MediaType(parsing: mimeType) else { return nil }
        if let identifier = Self.identifier(forMIMEKey: mediaType.lookupKey) {
            self.init(identifier)
        } else {
            self.init(Self.dynamicMIMEPrefix + mediaType.essence)
        }
    }

    /// The declared type for a filename extension such as `"png"` or `".PNG"`; nil when none claims it.
    public init?(filenameExtension: String) {
        guard let key = Self.normalizedExtension(filenameExtension),
            let identifier = Self.builtIns.catalog.identifiersByExtension[key]
                ?? Self.registry.withLock({ $0.identifiersByExtension[key] })
        else { return nil }
        self.init(identifier)
    }

    /// Declares a type this program owns and registers it process-wide.
    ///
    /// Declaring is idempotent and thread-safe. Declaring the same identifier again replaces the earlier
    /// declaration, including one made with `init(importedAs:…)`. Built-in identifiers cannot be
    /// redeclared: declaring one has no effect. When two declarations claim the same MIME type or
    /// extension, the built-in one wins, then the one declared first.
    ///
    /// ```swift
    /// extension ContentType {
    ///     static let profile = ContentType(exportedAs: "com.example.profile", conformingTo: [.json],
    ///                                      mimeTypes: ["application/vnd.example.profile+json"])
    /// }
    /// ```
    public init(
        exportedAs identifier: String,
        conformingTo supertypes: [ContentType] = [.data],
        mimeTypes: [String] = [],
        filenameExtensions: [String] = [],
        description: String? = nil
    ) {
        self.init(identifier)
        Self.register(
            Declaration(
                identifier: identifier, supertypes: supertypes, mimeTypes: mimeTypes,
                filenameExtensions: filenameExtensions, description: description, origin: .exported))
    }

    /// Declares a type that another program owns and registers it process-wide.
    ///
    /// Behaves like `init(exportedAs:…)`, except that it never replaces an exported declaration of the
    /// same identifier: the owner's declaration wins.
    public init(
        importedAs identifier: String,
        conformingTo supertypes: [ContentType] = [.data],
        mimeTypes: [String] = [],
        filenameExtensions: [String] = [],
        description: String? = nil
    ) {
        self.init(identifier)
        Self.register(
            Declaration(
                identifier: identifier, supertypes: supertypes, mimeTypes: mimeTypes,
                filenameExtensions: filenameExtensions, description: description, origin: .imported))
    }

    // MARK: - Tags

    /// The MIME type to use when sending content of this type, or nil when it has none.
    public var preferredMIMEType: String? { mimeTypes.first }

    /// Every MIME type of this type, the preferred one first.
    public var mimeTypes: [String] {
        if let declaration = Self.declaration(for: identifier) { return declaration.mimeTypes }
        if let mimeType = dynamicMIMEType { return [mimeType] }
        return []
    }

    /// The filename extension (without a dot) to use when saving content of this type.
    public var preferredFilenameExtension: String? { filenameExtensions.first }

    /// Every filename extension of this type, lowercased and without a dot, the preferred one first.
    public var filenameExtensions: [String] { Self.declaration(for: identifier)?.filenameExtensions ?? [] }

    /// The identifier.
    public var description: String { identifier }

    /// A short human-readable name such as "PNG image"; the identifier for undeclared types.
    public var localizedDescription: String { Self.declaration(for: identifier)?.description ?? identifier }

    /// Whether the type is built in or was declared with `init(exportedAs:…)` or `init(importedAs:…)`.
    public var isDeclared: Bool { Self.declaration(for: identifier) != nil }

    /// Whether the identifier is a dynamic one (it starts with `dyn.`), made up for an unknown tag.
    public var isDynamic: Bool { identifier.hasPrefix("dyn.") }

    /// Whether the identifier is in the reserved `public.` domain, such as `public.png`.
    public var isPublic: Bool { identifier.hasPrefix("public.") }

    // MARK: - Conformance

    /// Every type this one conforms to, transitively, excluding itself.
    ///
    /// Every type but `.item` includes `.item`. A type nobody declared conforms to `.data`; a dynamic type
    /// made from a `text/*` MIME type conforms to `.text`, and one whose subtype ends in `+json` or `+xml`
    /// conforms to `.json` or `.xml`. Parameters of a dynamic type's MIME type do not change that: the
    /// dynamic type for `text/plain;charset=utf-16` conforms to `.text`, not to `.plainText` (see
    /// `canonicalType` for the type its name means).
    public var supertypes: Set<ContentType> {
        if let known = Self.builtIns.supertypes[identifier] { return known }
        let custom = Self.registry.withLock { $0 }
        var result: Set<ContentType> = []
        var pending = Self.directSupertypes(of: identifier, custom: custom)
        while let next = pending.popLast() {
            guard result.insert(next).inserted else { continue }
            if let known = Self.builtIns.supertypes[next.identifier] {
                result.formUnion(known)
            } else {
                pending += Self.directSupertypes(of: next.identifier, custom: custom)
            }
        }
        result.remove(self)
        if self != .item { result.insert(.item) }
        return result
    }

    /// Whether this type is `other` or a subtype of it.
    ///
    /// ```swift
    /// ContentType.png.conforms(to: .image)  // true
    /// ContentType.png.conforms(to: .text)   // false
    /// ```
    public func conforms(to other: ContentType) -> Bool {
        if self == other || other == .item { return true }
        if let known = Self.builtIns.supertypes[identifier] { return known.contains(other) }
        return supertypes.contains(other)
    }

    /// Whether `other` is a subtype of this type, but not this type itself, as with Apple's `UTType`.
    ///
    /// ```swift
    /// ContentType.image.isSupertype(of: .png)    // true
    /// ContentType.image.isSupertype(of: .image)  // false
    /// ```
    public func isSupertype(of other: ContentType) -> Bool { other != self && other.conforms(to: self) }

    /// Whether this type is a subtype of `other`, but not `other` itself, as with Apple's `UTType`.
    ///
    /// ```swift
    /// ContentType.png.isSubtype(of: .image)  // true
    /// ContentType.png.isSubtype(of: .png)    // false
    /// ```
    public func isSubtype(of other: ContentType) -> Bool { other != self && conforms(to: other) }

    /// The type this type's name means once its MIME parameters are read as `init(mimeType:)` reads them: for a
    /// dynamic type kept verbatim from an application's offer, such as
    /// `dyn.mime.text/plain;charset=utf-16`, the declared type (`.utf16PlainText`); every other type is its own
    /// canonical type.
    ///
    /// A user naming a type (`--type`, a `drop-type` rule) means the canonical type: a rule that drops
    /// `text/plain` drops `text/plain;charset=utf-16` too.
    ///
    /// ```swift
    /// ContentType("dyn.mime.text/plain;charset=utf-16").canonicalType  // .utf16PlainText
    /// ContentType("dyn.mime.Image/PNG").canonicalType                 // .png
    /// ContentType.png.canonicalType                                   // .png
    /// ```
    public var canonicalType: ContentType {
        if let name = dynamicX11Target { return ContentType(x11Target: name) ?? self }
        guard let mimeType = dynamicMIMEType, let type = ContentType(mimeType: mimeType) else { return self }
        return type
    }

    /// Whether the type conforms to `.text`.
    public var isText: Bool { conforms(to: .text) }

    /// Whether the type conforms to `.image`.
    public var isImage: Bool { conforms(to: .image) }

    // MARK: - Lookup

    /// Every declared type, built in and custom, sorted by identifier.
    public static var declaredTypes: [ContentType] {
        let custom = registry.withLock { Array($0.declarations.keys) }
        return (Array(builtIns.catalog.declarations.keys) + custom).sorted().map(ContentType.init)
    }

    /// The type a user means by a command-line argument such as `--type png`.
    ///
    /// Accepts, in this order: a short alias (`text`, `plain`, `utf8`, `html`, `rtf`, `url`, `file`,
    /// `uri-list`, `json`, `xml`, `csv`, `image`, `png`, `jpeg`, `jpg`, `gif`, `webp`, `bmp`, `tiff`, `svg`,
    /// `pdf`, `data`), the identifier of a declared or dynamic type, a MIME type, a filename extension with
    /// or without its dot, or any other reverse-DNS identifier. Returns nil for anything else.
    ///
    /// ```swift
    /// ContentType.resolve("utf8")            // .utf8PlainText
    /// ContentType.resolve(".PNG")            // .png
    /// ContentType.resolve("com.example.x")   // ContentType("com.example.x")
    /// ContentType.resolve("???")             // nil
    /// ```
    public static func resolve(_ userInput: String) -> ContentType? {
        let input = String(userInput.withoutSurroundingWhitespace())
        guard !input.isEmpty else { return nil }
        if let alias = aliases[input.lowercased()] { return alias }
        if declaration(for: input) != nil { return ContentType(input) }
        if let declared = declaredTypes.first(where: { $0.identifier.lowercased() == input.lowercased() }) {
            return declared
        }
        if ContentType(input).dynamicMIMEType != nil { return ContentType(input) }
        if input.contains("/") { return ContentType(mimeType: input) }
        if let type = ContentType(filenameExtension: input) { return type }
        return isReverseDNS(input) ? ContentType(input) : nil
    }

    // MARK: - Codable

    /// Decodes a type from its identifier string; an empty string is an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let identifier = try container.decode(String.self)
        guard !identifier.isEmpty else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "A content type identifier cannot be empty.")
        }
        self.init(identifier)
    }

    /// Encodes the type as its identifier string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}

// MARK: - Registry

extension ContentType {
    /// What is known about one declared type.
    struct Declaration: Sendable, Equatable {
        enum Origin: Sendable, Equatable {
            case builtIn, exported, imported
        }

        var identifier: String
        /// The direct supertypes.
        var supertypes: [ContentType]
        var mimeTypes: [String]
        /// Lowercased, without a leading dot.
        var filenameExtensions: [String]
        var description: String?
        var origin: Origin

        init(
            identifier: String, supertypes: [ContentType], mimeTypes: [String], filenameExtensions: [String],
            description: String?, origin: Origin
        ) {
            self.identifier = identifier
            self.supertypes = supertypes
            self.mimeTypes = mimeTypes
            self.filenameExtensions = filenameExtensions.compactMap(ContentType.normalizedExtension)
            self.description = description
            self.origin = origin
        }
    }

    /// A set of declarations indexed by identifier, MIME type and extension.
    struct Catalog: Sendable {
        private(set) var declarations: [String: Declaration] = [:]
        private(set) var identifiersByMIMEKey: [String: String] = [:]
        private(set) var identifiersByExtension: [String: String] = [:]
        /// Identifiers in the order first declared, which decides who owns a contested tag.
        private var order: [String] = []

        init() {}

        /// Inserts or replaces a declaration.
        mutating func insert(_ declaration: Declaration) {
            if declarations.updateValue(declaration, forKey: declaration.identifier) == nil {
                order.append(declaration.identifier)
                index(declaration)
            } else {
                identifiersByMIMEKey = [:]
                identifiersByExtension = [:]
                for identifier in order { index(declarations[identifier]!) }
            }
        }

        private mutating func index(_ declaration: Declaration) {
            for mimeType in declaration.mimeTypes {
                guard let key = MediaType(parsing: mimeType)?.lookupKey else { continue }
                if identifiersByMIMEKey[key] == nil { identifiersByMIMEKey[key] = declaration.identifier }
            }
            for filenameExtension in declaration.filenameExtensions
            where identifiersByExtension[filenameExtension] == nil {
                identifiersByExtension[filenameExtension] = declaration.identifier
            }
        }
    }

    /// Types declared at run time.
    static let registry = Mutex(Catalog())

    static let dynamicMIMEPrefix = "dyn.mime."

    static func register(_ declaration: Declaration) {
        // Declaring is done by the program's own code with constant identifiers: a bad one is a bug.
        precondition(!declaration.identifier.isEmpty, "A content type identifier cannot be empty.")
        precondition(!declaration.identifier.hasPrefix("dyn."), "Dynamic identifiers (dyn.*) cannot be declared.")
        guard builtIns.catalog.declarations[declaration.identifier] == nil else { return }
        registry.withLock { catalog in
            if let existing = catalog.declarations[declaration.identifier] {
                if existing == declaration { return }
                if declaration.origin == .imported && existing.origin == .exported { return }
            }
            catalog.insert(declaration)
        }
    }

    static func declaration(for identifier: String) -> Declaration? {
        if let declaration = builtIns.catalog.declarations[identifier] { return declaration }
        return registry.withLock { $0.declarations[identifier] }
    }

    static func identifier(forMIMEKey key: String) -> String? {
        builtIns.catalog.identifiersByMIMEKey[key] ?? registry.withLock { $0.identifiersByMIMEKey[key] }
    }

    /// The declared direct supertypes, or the implicit ones of an undeclared type.
    static func directSupertypes(of identifier: String, custom: Catalog) -> [ContentType] {
        if let declaration = builtIns.catalog.declarations[identifier] ?? custom.declarations[identifier] {
            return declaration.supertypes
        }
        guard let mimeType = ContentType(identifier).dynamicMIMEType, let mediaType = MediaType(parsing: mimeType) else {
            return [.data]
        }
        if mediaType.subtype.hasSuffix("+json") { return [.json] }
        if mediaType.subtype.hasSuffix("+xml") { return [.xml] }
        if mediaType.type == "text" { return [.text] }
        return [.data]
    }

    /// The MIME type a `dyn.mime.` identifier stands for, exactly as it follows the prefix (parameters, quoting and
    /// case kept: `dyn.mime.text/plain;charset=utf-16` stands for `text/plain;charset=utf-16`).
    var dynamicMIMEType: String? {
        guard identifier.hasPrefix(Self.dynamicMIMEPrefix) else { return nil }
        let name = String(identifier.dropFirst(Self.dynamicMIMEPrefix.count))
        return Self.isVerbatimMIMEName(name) ? name : nil
    }

    /// The longest MIME type name kept verbatim, in UTF-8 bytes (LibreOffice's longest names are about 250).
    static let maxVerbatimNameBytes = 4096

    /// Whether `name` can follow `dyn.mime.` as it is: a MIME type (`type/subtype` and any parameters) with no
    /// whitespace around it and no control character, so that the identifier prints on one line and reads back
    /// wherever identifiers are parsed.
    static func isVerbatimMIMEName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
            !first.properties.isWhitespace, !last.properties.isWhitespace, name.utf8.count <= maxVerbatimNameBytes,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
        else { return false }
        return MediaType(parsing: name) != nil
    }

    static func normalizedExtension(_ filenameExtension: String) -> String? {
        var trimmed = filenameExtension.withoutSurroundingWhitespace()
        if trimmed.first == "." { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty, !trimmed.contains("."), !trimmed.contains("/") else { return nil }
        return trimmed.lowercased()
    }

    /// Whether `string` looks like `com.example.thing`: at least two dot-separated ASCII labels.
    static func isReverseDNS(_ string: String) -> Bool {
        let labels = string.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_" }
            }
    }
}

// MARK: - MIME types

extension ContentType {
    /// A parsed MIME type: lowercased `type/subtype` and the `charset` parameter, if any.
    struct MediaType: Equatable {
        var type: String
        var subtype: String
        var charset: String?

        var essence: String { type + "/" + subtype }

        /// The key under which declarations index this MIME type: the essence, except that `text/plain`
        /// keeps a UTF-8 or UTF-16 charset.
        var lookupKey: String {
            guard essence == "text/plain", let charset else { return essence }
            switch charset {
            case "utf-8", "utf8": return "text/plain;charset=utf-8"
            case "utf-16", "utf16": return "text/plain;charset=utf-16"
            default: return essence
            }
        }

        init?(parsing string: String) {
            var parts = string.split(separator: ";", omittingEmptySubsequences: false)
            let names = parts.removeFirst().withoutSurroundingWhitespace().lowercased()
                .split(separator: "/", omittingEmptySubsequences: false)
            guard names.count == 2, Self.isRestrictedName(names[0]), Self.isRestrictedName(names[1]) else {
                return nil
            }
            type = String(names[0])
            subtype = String(names[1])
            for parameter in parts {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].withoutSurroundingWhitespace().lowercased() == "charset" else { continue }
                var value = pair[1].withoutSurroundingWhitespace()
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                charset = value.lowercased()
            }
        }

        /// RFC 6838 `restricted-name`: a letter or digit, then up to 126 of letters, digits and `!#$&-^_.+`.
        /// An underscore may come first too: Firefox offers `text/_moz_htmlcontext` and `text/_moz_htmlinfo`.
        private static func isRestrictedName(_ name: Substring) -> Bool {
            guard let first = name.unicodeScalars.first, first.isASCIIAlphanumeric || first == "_",
                name.utf8.count <= 127
            else {
                return false
            }
            return name.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || "!#$&-^_.+".unicodeScalars.contains($0) }
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}

extension StringProtocol {
    /// The string without leading and trailing whitespace and line breaks.
    fileprivate func withoutSurroundingWhitespace() -> SubSequence {
        guard let start = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[start...last]
    }
}
