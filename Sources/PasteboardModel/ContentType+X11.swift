extension ContentType {
    /// The targets an X11 selection owner advertises for `.utf8PlainText`, most specific first.
    static let x11UTF8TextTargets = ["UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT"]

    /// The type of content an X11 selection target names, or nil for a meta target.
    ///
    /// `UTF8_STRING` is `.utf8PlainText`. `STRING` (ISO Latin-1 per the ICCCM), `TEXT`, `COMPOUND_TEXT` and
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
        case "UTF8_STRING":
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
    /// For `.utf8PlainText` these are `UTF8_STRING`, `text/plain;charset=utf-8`, `text/plain`, `STRING` and
    /// `TEXT` (a reader asking for `STRING` expects Latin-1, so the owner converts). For every other type
    /// they are its MIME types, which is empty for abstract types and for `.url` and `.fileURL`.
    public var x11Targets: [String] {
        self == .utf8PlainText ? Self.x11UTF8TextTargets : mimeTypes
    }
}
