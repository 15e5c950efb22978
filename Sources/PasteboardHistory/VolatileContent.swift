import PasteboardModel
import Synchronization
import TextSupport

/// The table of known per-copy noise: the types, and the fields inside types, that an application writes anew
/// every time it offers the same content. Identity (`ItemIdentity`) leaves such a type out, or hashes its bytes
/// with the field normalised, so that copying the same thing twice makes one history item.
///
/// | MIME type | treatment | why |
/// |---|---|---|
/// | `application/x-libreoffice-internal-id-*` | left out | LibreOffice's GTK backend puts its process id in it |
/// | `application/x-copyq-owner` | left out | CopyQ's session and a counter (never fetched by capture either) |
/// | `chromium/x-internal-source-rfh-token` | left out | the frame that copied (never fetched by capture either) |
/// | `application/x-openoffice-link` | `ddeLinkName` | a bookmark name with a per-copy counter |
/// | `application/x-openoffice-embed-source-xml` | `openDocumentPackage` | zip times, random Rsid, bookmarks |
/// | `text/rtf`, `text/richtext` | `rtfDDELinkBookmarks` | LibreOffice's per-copy bookmarks |
/// | `text/html` | `libreOfficeTemporaryPaths` | image sources in LibreOffice's temporary files |
///
/// Types match by MIME type without parameters and without case (`…embed-source-xml;windows_formatname="…"` is
/// `…embed-source-xml`); a pattern ending in `*` matches every type it begins. A field rule changes nothing for
/// bytes that do not hold the field, so the identity of every item without a listed type, or whose listed types
/// hold none of the fields, is exactly what it always was. docs/identity.md tells the rule and how each entry
/// was observed.
enum VolatileContent {
    /// What identity does with a listed type.
    enum Treatment: Sendable, Equatable {
        /// The type is left out of identity (its bytes are still kept).
        case excluded
        /// The type's bytes are hashed with `field` normalised.
        case normalised(VolatileField)
    }

    /// One row of the table.
    struct Entry: Sendable {
        /// A MIME type without parameters, lowercase; ending in `*`, a prefix.
        let pattern: String
        let treatment: Treatment
    }

    static let table: [Entry] = [
        Entry(pattern: "application/x-libreoffice-internal-id-*", treatment: .excluded),
        Entry(pattern: "application/x-copyq-owner", treatment: .excluded),
        Entry(pattern: "chromium/x-internal-source-rfh-token", treatment: .excluded),
        Entry(pattern: "application/x-openoffice-link", treatment: .normalised(.ddeLinkName)),
        Entry(pattern: "application/x-openoffice-embed-source-xml", treatment: .normalised(.openDocumentPackage)),
        Entry(pattern: "text/rtf", treatment: .normalised(.rtfDDELinkBookmarks)),
        Entry(pattern: "text/richtext", treatment: .normalised(.rtfDDELinkBookmarks)),
        Entry(pattern: "text/html", treatment: .normalised(.libreOfficeTemporaryPaths)),
    ]

    /// Bytes of a representation normalised at most: a larger one is identified by its content address, as every
    /// representation was before, and is never read for identity (a file-backed one stays on disk).
    static let normalisedSizeLimit = 16 << 20

    /// What identity does with `type`, or nil for a type the table does not list.
    ///
    /// Asked for every representation of every item recorded, so the answers are kept by type identifier (up to
    /// `knownLimit` of them): working it out takes the MIME type apart, which was a sixth of `pb import`'s time
    /// for its rows.
    static func treatment(of type: ContentType) -> Treatment? {
        if let answer = known.withLock({ $0[type.identifier] }) { return answer }
        let answer = lookUp(type)
        known.withLock { if $0.count < knownLimit { $0[type.identifier] = answer } }
        return answer
    }

    /// Answers of `treatment(of:)` by type identifier.
    private static let known = Mutex<[String: Treatment?]>([:])
    /// Types whose answers are kept, at most: an import of made-up types costs no more memory than this.
    static let knownLimit = 256

    private static func lookUp(_ type: ContentType) -> Treatment? {
        guard let mimeType = mimeType(of: type) else { return nil }
        for entry in table {
            if entry.pattern.hasSuffix("*") {
                if mimeType.hasPrefix(entry.pattern.dropLast()) { return entry.treatment }
            } else if mimeType == entry.pattern {
                return entry.treatment
            }
        }
        return nil
    }

    /// The type's MIME type, lowercase and without parameters.
    static func mimeType(of type: ContentType) -> String? {
        let name: Substring
        if let preferred = type.preferredMIMEType {
            name = Substring(preferred)
        } else if type.identifier.hasPrefix(dynamicMIMEPrefix) {
            name = type.identifier.dropFirst(dynamicMIMEPrefix.count)
        } else {
            return nil
        }
        let essence = name.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? name
        return essence.trimmingWhitespace().lowercased()
    }

    private static let dynamicMIMEPrefix = "dyn.mime."
}
