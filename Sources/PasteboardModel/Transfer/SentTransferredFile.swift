public import FoundationEssentials

/// A file a `FileRepresentation` exports, and whether receivers may use it in place.
///
/// As with Apple's `SentTransferredFile`, receivers get a copy unless the sender allows access to the
/// original:
///
/// ```swift
/// FileRepresentation(exportedContentType: .mpeg4Movie) { video in
///     SentTransferredFile(video.file)  // receivers get a copy
/// }
/// FileRepresentation(exportedContentType: .pdf) { report in
///     SentTransferredFile(report.file, allowAccessingOriginalFile: true)  // receivers may open it in place
/// }
/// ```
public struct SentTransferredFile: Sendable, Hashable {
    /// The file's location.
    public let file: URL

    /// Whether a receiver may read and keep using the original file rather than a copy of it.
    public let allowAccessingOriginalFile: Bool

    /// A file to send; receivers get a copy of it unless `allowAccessingOriginalFile` is true.
    public init(_ file: URL, allowAccessingOriginalFile: Bool = false) {
        self.file = file
        self.allowAccessingOriginalFile = allowAccessingOriginalFile
    }
}
