import FoundationEssentials

/// A field inside a representation's bytes that an application writes anew on every copy of the same content, and
/// how identity sees past it (see `VolatileContent` for the types each applies to).
///
/// Each was seen in LibreOffice 7.4's copies (the samples are in `Tests/Fixtures/LibreOffice`): copying the same
/// Writer selection again, or reading the same copy twice, changes exactly these bytes and nothing else.
enum VolatileField: Sendable, Equatable {
    /// `__DdeLink__<counter>_<session>` in LibreOffice's link type: the name of a bookmark that Writer puts around
    /// the selection whenever the link type is read; the counter grows with every copy.
    case ddeLinkName
    /// Those bookmarks again, in RTF: `{\*\bkmkstart __DdeLink__…}` and `{\*\bkmkend __DdeLink__…}` groups, one
    /// pair more for every earlier copy whose link type was read.
    case rtfDDELinkBookmarks
    /// Image sources in LibreOffice's temporary files,
    /// `file:///tmp/lu<process><counter>.tmp/lu<counter>_tmp_<hash>.png`: the directory changes with each run of
    /// LibreOffice and the counter with every copy (the `_tmp_<hash>` rest names the picture and stays).
    case libreOfficeTemporaryPaths
    /// LibreOffice's own copy of the selection, an OpenDocument package (a zip): its member times (to 2 s), the
    /// random `Rsid` and `RsidRoot` in `settings.xml`, and the `__DdeLink__` bookmarks in its XML. Seen past by
    /// taking what the package holds (each member's name and inflated bytes, those fields left out) rather than
    /// its bytes.
    case openDocumentPackage

    /// The content address (as `SHA256.address` gives) of `bytes` with this field normalised, or nil when they hold
    /// no such field, or are not what the field lives in (then identity uses their own content address, as ever).
    func address(of bytes: [UInt8]) -> Data? {
        switch self {
        case .ddeLinkName: Self.rewriting(bytes, Self.ddeLinkNames).map(Self.address)
        case .rtfDDELinkBookmarks: Self.rewriting(bytes, Self.rtfBookmarks).map(Self.address)
        case .libreOfficeTemporaryPaths: Self.rewriting(bytes, Self.temporaryPaths).map(Self.address)
        case .openDocumentPackage: Self.packageAddress(bytes)
        }
    }

    private static func address(_ bytes: [UInt8]) -> Data { SHA256.address(Data(bytes)) }

    // MARK: - Rewriting

    /// Where a rule matched: how many bytes from the match on it covers, and what stands for them.
    private typealias Match = (length: Int, replacement: [UInt8])

    /// A rule: the bytes every match starts with, and whether (and how) the bytes at an offset where they occur
    /// match.
    private typealias Rule = (start: [UInt8], match: @Sendable ([UInt8], Int) -> Match?)

    /// `bytes` with every match of `rule` replaced, or nil when nothing matched.
    private static func rewriting(_ bytes: [UInt8], _ rule: Rule) -> [UInt8]? {
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        let first = rule.start[0]
        while index + rule.start.count <= bytes.count {
            if bytes[index] == first, bytes[index..<index + rule.start.count].elementsEqual(rule.start),
                let match = rule.match(bytes, index)
            {
                if output.isEmpty { output.reserveCapacity(bytes.count) }
                output.append(contentsOf: bytes[copied..<index])
                output.append(contentsOf: match.replacement)
                index += match.length
                copied = index
            } else {
                index += 1
            }
        }
        if copied == 0 { return nil }
        output.append(contentsOf: bytes[copied...])
        return output
    }

    /// The length of `literal` when `bytes` has it at `offset`, else nil.
    private static func literal(_ literal: [UInt8], in bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + literal.count <= bytes.count, bytes[offset..<offset + literal.count].elementsEqual(literal)
        else { return nil }
        return literal.count
    }

    /// How many bytes from `offset` satisfy `predicate`.
    private static func run(in bytes: [UInt8], from offset: Int, _ predicate: (UInt8) -> Bool) -> Int {
        var end = offset
        while end < bytes.count && predicate(bytes[end]) { end += 1 }
        return end - offset
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The length of a bookmark's numbers, `<counter>_<session>` (or only `<counter>`), at `offset`; nil when
    /// there is none.
    private static func ddeLinkNumbers(in bytes: [UInt8], at offset: Int) -> Int? {
        let counter = run(in: bytes, from: offset, isDigit)
        guard counter > 0 else { return nil }
        var end = offset + counter
        if end < bytes.count, bytes[end] == UInt8(ascii: "_") {
            let session = run(in: bytes, from: end + 1, isDigit)
            if session > 0 { end += 1 + session }
        }
        return end - offset
    }

    private static let ddeLinkPrefix = Array("__DdeLink__".utf8)

    // MARK: - The rules

    /// `__DdeLink__12_1490702399` becomes `__DdeLink__`.
    private static let ddeLinkNames: Rule = (
        ddeLinkPrefix,
        { bytes, offset in
            guard let numbers = ddeLinkNumbers(in: bytes, at: offset + ddeLinkPrefix.count) else { return nil }
            return (ddeLinkPrefix.count + numbers, ddeLinkPrefix)
        }
    )

    /// `{\*\bkmkstart __DdeLink__12_1490702399}` and `{\*\bkmkend __DdeLink__12_1490702399}` go.
    private static let rtfBookmarks: Rule = (
        Array(#"{\*\bkmk"#.utf8),
        { bytes, offset in
            var end = offset + 8
            guard
                let kind = literal(Array("start ".utf8), in: bytes, at: end)
                    ?? literal(Array("end ".utf8), in: bytes, at: end)
            else { return nil }
            end += kind
            guard let prefix = literal(ddeLinkPrefix, in: bytes, at: end) else { return nil }
            end += prefix
            guard let numbers = ddeLinkNumbers(in: bytes, at: end) else { return nil }
            end += numbers
            guard end < bytes.count, bytes[end] == UInt8(ascii: "}") else { return nil }
            return (end + 1 - offset, [])
        }
    )

    /// `<text:bookmark-start text:name="__DdeLink__12_1490702399"/>` and its `bookmark-end` go.
    private static let xmlBookmarks: Rule = (
        Array("<text:bookmark-".utf8),
        { bytes, offset in
            var end = offset + 15
            guard
                let kind = literal(Array("start".utf8), in: bytes, at: end)
                    ?? literal(Array("end".utf8), in: bytes, at: end)
            else { return nil }
            end += kind
            guard let name = literal(Array(#" text:name=""#.utf8) + ddeLinkPrefix, in: bytes, at: end) else {
                return nil
            }
            end += name
            guard let numbers = ddeLinkNumbers(in: bytes, at: end) else { return nil }
            end += numbers
            guard let close = literal(Array(#""/>"#.utf8), in: bytes, at: end) else { return nil }
            return (end + close - offset, [])
        }
    )

    /// The values of `Rsid` and `RsidRoot` in settings.xml go: `config:name="Rsid" config:type="int">1095538<`
    /// becomes `config:name="Rsid" config:type="int"><`.
    private static let revisionSessionIDs: Rule = (
        Array(#"config:name="Rsid"#.utf8),
        { bytes, offset in
            var end = offset + 17
            end += literal(Array("Root".utf8), in: bytes, at: end) ?? 0
            guard let type = literal(Array(#"" config:type="int">"#.utf8), in: bytes, at: end) else { return nil }
            end += type
            let digits = run(in: bytes, from: end, isDigit)
            guard digits > 0 else { return nil }
            return (end + digits - offset, Array(bytes[offset..<end]))
        }
    )

    /// In a `file://` URL whose last two path segments are LibreOffice's temporary directory and file
    /// (`lu<letters and digits>.tmp/lu<letters and digits>_…`), everything up to the `_` becomes
    /// `file:///(LibreOffice temporary file)`.
    private static let temporaryPaths: Rule = (
        Array("file://".utf8),
        { bytes, offset in
            guard let file = libreOfficeTemporaryFile(in: bytes, at: offset) else { return nil }
            return (file.prefixLength, temporaryFileMarker)
        }
    )

    /// The `file://` URL at `offset` (which starts with `file://`), when its last two path segments are
    /// LibreOffice's temporary directory and file (`lu<letters and digits>.tmp/lu<letters and digits>_…`): its
    /// length, and the length of its part up to the `_` (what changes from one copy to the next).
    static func libreOfficeTemporaryFile(in bytes: [UInt8], at offset: Int) -> (urlLength: Int, prefixLength: Int)? {
        // The URL ends at a quote, an angle bracket, a parenthesis or white space.
        let length = run(in: bytes, from: offset) { byte in
            !(byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "<")
                || byte == UInt8(ascii: ">") || byte == UInt8(ascii: ")") || byte <= 0x20)
        }
        let url = bytes[offset..<offset + length]
        guard let fileSlash = url.lastIndex(of: UInt8(ascii: "/")),
            let directorySlash = url[..<fileSlash].lastIndex(of: UInt8(ascii: "/"))
        else { return nil }
        let directory = Array(url[(directorySlash + 1)..<fileSlash])
        let file = Array(url[(fileSlash + 1)...])
        guard directory.count > 6, directory.starts(with: Array("lu".utf8)),
            directory.suffix(4).elementsEqual(Array(".tmp".utf8)), directory.dropFirst(2).dropLast(4).allSatisfy(isAlphanumeric)
        else { return nil }
        let name = run(in: file, from: 2, isAlphanumeric)
        guard file.starts(with: Array("lu".utf8)), name > 0, 2 + name < file.count, file[2 + name] == UInt8(ascii: "_")
        else { return nil }
        return (length, fileSlash + 1 + 2 + name - offset)
    }

    private static let temporaryFileMarker = Array("file:///(LibreOffice temporary file)".utf8)

    // MARK: - OpenDocument packages

    /// Members of a package read at most, inflated (a package with more is hashed as it is).
    static let packageLimit = 64 << 20

    /// The address of what a package holds: each member's name, length and bytes, in order, with the bookmarks
    /// (XML members) and the revision session ids (settings.xml) left out. Nil when `bytes` are not a zip archive
    /// this can read.
    private static func packageAddress(_ bytes: [UInt8]) -> Data? {
        var hasher = SHA256()
        let settings = Array("settings.xml".utf8)
        let xml = Array(".xml".utf8)
        let complete = ZipArchive.forEachMember(of: bytes, limit: packageLimit) { name, contents in
            var contents = contents
            if name.elementsEqual(settings), let rewritten = rewriting(contents, revisionSessionIDs) {
                contents = rewritten
            }
            if name.count >= xml.count, name.suffix(xml.count).elementsEqual(xml),
                let rewritten = rewriting(contents, xmlBookmarks)
            {
                contents = rewritten
            }
            var header = Array(name)
            header.append(0)
            withUnsafeBytes(of: UInt64(contents.count).littleEndian) { header.append(contentsOf: $0) }
            header.withUnsafeBytes { hasher.update($0) }
            contents.withUnsafeBytes { hasher.update($0) }
        }
        return complete ? hasher.finalize(byteCount: 16) : nil
    }
}
