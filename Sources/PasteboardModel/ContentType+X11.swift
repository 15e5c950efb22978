extension ContentType {
    /// The targets an X11 selection owner advertises for `.utf8PlainText`, most specific first.
    static let x11UTF8TextTargets = [
        "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT", "COMPOUND_TEXT",
    ]

    /// The type of content an X11 selection target names, or nil for a meta target.
    ///
    /// `UTF8_STRING` is `.utf8PlainText`, and so is `UTF-8`, which LibreOffice offers beside it. `STRING` (ISO
    /// Latin-1 per the ICCCM), `TEXT`, `COMPOUND_TEXT` and
    /// `C_STRING` are `.plainText`: their encoding is not UTF-8, so whoever reads them converts. A target
    /// containing a slash is read as a MIME type (see `init(mimeType:)`). Everything else, such as
    /// `TARGETS`, `TIMESTAMP`, `MULTIPLE`, `SAVE_TARGETS`, `DELETE` or `INCR`, asks about or manipulates
    /// the selection rather than naming content, and gives nil.
    ///
    /// ```swift
    /// ContentType(x11Target: "UTF8_STRING")  // .utf8PlainText
    /// ContentType(x11Target: "image/png")    // .png
    /// ContentType(x11Target: "TARGETS")      // nil
    /// ```
    public init?(x11Target: String) {
        switch x11Target {
        case "UTF8_STRING", "UTF-8":
            self = .utf8PlainText
        case "STRING", "TEXT", "COMPOUND_TEXT", "C_STRING":
            self = .plainText
        default:
            guard x11Target.contains("/"), let type = ContentType(mimeType: x11Target) else { return nil }
            self = type
        }
    }

    /// The targets a selection owner holding content of this type advertises, most specific first.
    ///
    /// For `.utf8PlainText` these are `UTF8_STRING`, `text/plain;charset=utf-8`, `text/plain`, `STRING`, `TEXT`
    /// and `COMPOUND_TEXT` (a reader asking for `STRING` expects Latin-1, one asking for `COMPOUND_TEXT` or
    /// `TEXT` compound text, so the owner converts). For every other type they are its MIME types, which is
    /// empty for abstract types and for `.url` and `.fileURL`; for a dynamic type kept verbatim, the one name
    /// it was offered under.
    public var x11Targets: [String] {
        if self == .utf8PlainText { return Self.x11UTF8TextTargets }
        if let name = dynamicX11Target { return [name] }
        return mimeTypes
    }

    /// The prefix of a dynamic type that keeps an X11 target name that is not a MIME type (LibreOffice's `UTF-8`
    /// beside `UTF8_STRING`): `dyn.x11.UTF-8`. Only names that `init(x11Target:)` reads as content get one.
    static let dynamicX11Prefix = "dyn.x11."

    /// The dynamic type that keeps `name` exactly as an application offered it, even where another representation
    /// has the canonical type of that name: `dyn.mime.` and the name for a MIME type, `dyn.x11.` and the name for
    /// an X11 target that names content (`dyn.x11.UTF-8`); nil for a name that cannot be kept verbatim (a meta
    /// target, a name with control characters or surrounding whitespace, an X11 name with other characters than
    /// letters, digits, `-`, `_` and `.`).
    ///
    /// ```swift
    /// ContentType(verbatimName: "text/plain;charset=utf-8")?.identifier  // "dyn.mime.text/plain;charset=utf-8"
    /// ContentType(verbatimName: "UTF-8")?.identifier                     // "dyn.x11.UTF-8"
    /// ContentType(verbatimName: "TARGETS")                               // nil
    /// ```
    public init?(verbatimName name: String) {
        if name.contains("/") {
            guard Self.isVerbatimMIMEName(name) else { return nil }
            self.init(Self.dynamicMIMEPrefix + name)
        } else {
            guard Self.isVerbatimX11Name(name) else { return nil }
            self.init(Self.dynamicX11Prefix + name)
        }
    }

    static func isVerbatimX11Name(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && ContentType(x11Target: name) != nil
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".contains(Character(scalar)))
            }
    }

    /// The X11 target name a `dyn.x11.` identifier stands for.
    var dynamicX11Target: String? {
        guard identifier.hasPrefix(Self.dynamicX11Prefix) else { return nil }
        let name = String(identifier.dropFirst(Self.dynamicX11Prefix.count))
        return Self.isVerbatimX11Name(name) ? name : nil
    }

    /// The type a representation offered under `name` (an X11 target or a Wayland MIME type) is kept as, so that
    /// it can be offered again under exactly that name; nil for a meta target (see `init(x11Target:)`).
    ///
    /// A name that its canonical type (`init(x11Target:)`) advertises again (`x11Targets`) gives that type:
    /// `image/png` is `.png`, `text/html` is `.html`, `UTF8_STRING` is `.utf8PlainText`, `image/jpg` is `.jpeg`.
    /// Any other MIME type gives a dynamic type whose identifier is `dyn.mime.` followed by the name as offered,
    /// parameters, quoting and case kept, and whose preferred MIME type is that name. It conforms as dynamic
    /// types do (`text/*` to `.text`), never to `.plainText`, so an item's text stays its UTF-8 text. The X11
    /// text targets `STRING`, `TEXT`, `COMPOUND_TEXT` and `C_STRING` give `.plainText`, as `init(x11Target:)`
    /// does; so does a name with control characters or surrounding whitespace, which is never kept verbatim.
    ///
    /// ```swift
    /// ContentType(offeredName: "image/png")                              // .png
    /// ContentType(offeredName: "text/plain;charset=utf-16")              // .utf16PlainText
    /// ContentType(offeredName: "text/plain;charset=UTF-8")?.identifier   // "dyn.mime.text/plain;charset=UTF-8"
    /// ContentType(offeredName: "text/_moz_htmlcontext")?.identifier      // "dyn.mime.text/_moz_htmlcontext"
    /// ContentType(offeredName: "TARGETS")                                // nil
    /// ```
    public init?(offeredName name: String) {
        guard let canonical = ContentType(x11Target: name) else { return nil }
        if canonical.x11Targets.contains(name) || !name.contains("/") || !Self.isVerbatimMIMEName(name) {
            self = canonical
        } else {
            self.init(Self.dynamicMIMEPrefix + name)
        }
    }
}
