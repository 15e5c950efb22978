import TextSupport

/// Types pb never reads from an owner, nor stores, each for a reason in `reasons`:
///
/// - private markers that applications add to every copy and change each time, which say nothing about the content:
///   CopyQ's `application/x-copyq-owner` (its own session and a counter) and Chromium's
///   `chromium/x-internal-source-rfh-token` (the frame that copied, new on every page load). Kept, they would make
///   every repeat of the same copy a new item (`copyq select 0` three times made three identical items; so did
///   Copy, reload, Copy in Chromium), and serving them back after their application exits would be meaningless;
/// - types whose reading changes the application's document: LibreOffice Writer answers a request for
///   `application/x-openoffice-link` by inserting a `__DdeLink__` bookmark into the document and marking it
///   modified (so quitting asks to save, and each later copy carries one more bookmark). A clipboard manager must
///   never do that; the link names a range of a document open in that very LibreOffice, so it is of no use once
///   LibreOffice has exited.
///
/// The names compare without case and without MIME parameters (LibreOffice offers
/// `application/x-openoffice-link;windows_formatname="Link"`).
public enum VolatileMarkers {
    /// Each type, with why it is never read.
    public static let reasons: [String: String] = [
        "application/x-copyq-owner": "CopyQ's private marker, new on every copy",
        "chromium/x-internal-source-rfh-token": "Chromium's frame token, new on every page load",
        "application/x-openoffice-link": "reading it makes LibreOffice Writer insert a bookmark into the document",
    ]

    /// Whether `typeName` is one of them.
    public static func isVolatile(_ typeName: String) -> Bool {
        let essence = typeName.split(separator: ";", maxSplits: 1).first.map(String.init) ?? typeName
        return reasons[essence.trimmingWhitespaceAndNewlines().lowercased()] != nil
    }
}
