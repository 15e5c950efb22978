public import Foundation

/// A file a `FileRepresentation` exports, and whether receivers may use it in place.
///
/// ```swift
/// FileRepresentation(exportedContentType: .mpeg4Movie) { video in
///     SentTransferredFile(video.url, allowAccessingOriginalFile: false)
/// }
/// ```
public struct SentTransferredFile: Sendable, Hashable {
    /// The file's location.
    public let file: URL

    /// Whether a receiver may read and keep using the original file rather than a copy of it.
    public let allowAccessingOriginalFile: Bool

    /// A file to send; with `allowAccessingOriginalFile` false, receivers get a copy.
    public init(_ file: URL, allowAccessingOriginalFile: Bool = true) {
        self.file = file
        self.allowAccessingOriginalFile = allowAccessingOriginalFile
    }
}
