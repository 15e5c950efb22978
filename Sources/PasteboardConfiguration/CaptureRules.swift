public import FoundationEssentials
public import PasteboardModel
import TextSupport

/// User rules deciding what is never recorded, from the configuration file:
///
/// ```
/// ignore-app = KeePassXC            # the copying application (X11: WM_CLASS; case-insensitive)
/// ignore-type = image/*             # a MIME type, identifier or extension; * matches any tail: a copy
///                                   # offering such a type is not recorded at all
/// drop-type = text/html             # the same patterns: only that representation is left out (not even
///                                   # read); the rest of the copy is recorded
/// ignore-text = ^\d{6}$             # a regular expression on the text (one-time codes)
/// max-item-size = 50M               # larger items are not recorded
/// primary = on                      # also record the PRIMARY selection (coalesced)
/// ```
///
/// A type pattern matches a representation kept under the name an application offered by what that name means
/// (`ContentType.canonicalType`): `text/plain` matches `text/plain;charset=utf-16` too, and
/// `application/x-openoffice-embed-source-xml` matches it with any parameters.
public struct CaptureRules: Sendable {
    public var ignoredApplications: [String] = []
    public var ignoredTypes: [String] = []
    /// Types left out of a copy that is otherwise recorded (`drop-type`).
    public var droppedTypes: [String] = []
    public var ignoredText: [TextRule] = []
    public var maxItemBytes: Int?
    public var capturesPrimary = false
    /// How long an emptied selection stays empty before the daemon serves its last content (`take-over-delay`).
    ///
    /// An application that replaces its own copy on Wayland (GTK, Qt, Firefox, Chromium) destroys its old source
    /// before it sets the new one, so the compositor reports the selection empty in between; a source the daemon
    /// set in that gap carries a newer serial than the application's request, and the compositor then rejects the
    /// application's copy (wlroots: "serial indicates superseded"). The gaps measured with GTK 4, Firefox ESR and
    /// Chromium on sway and KWin were 0.004–0.9 ms, and 13.2 ms at most with both cores busy (Qt sets its new source
    /// first and leaves no gap; Tests/Apps/wayland-fixtures/selection_gap.py): 200 ms is fifteen times the worst.
    /// An owner that is really gone costs readers this long with an empty clipboard (bench/takeover_bench.py). A new owner in the meantime cancels the take-over. 0 takes over at once, in the middle of
    /// the compositor's events (pb's rule before, which lost every second copy of such an application).
    public var takeOverDelay: TimeInterval = CaptureRules.defaultTakeOverDelay
    public static let defaultTakeOverDelay: TimeInterval = 0.2
    /// The delays `take-over-delay` accepts.
    public static let takeOverDelayRange: ClosedRange<TimeInterval> = 0...5

    public init() {}

    /// Why a copy from `application` must not even be read, or nil.
    public func rejection(ofApplication application: String?) -> String? {
        guard let application,
            ignoredApplications.contains(where: { $0.isEqualIgnoringCase(application) })
        else { return nil }
        return "application \(application) is ignored"
    }

    /// Why a copy offering `offeredTypes` must not even be read, or nil: an `ignore-type` rule names one of them.
    public func rejection(ofOfferedTypes offeredTypes: [ContentType]) -> String? {
        for pattern in ignoredTypes {
            for type in offeredTypes where Self.matches(type, pattern: pattern) {
                return "type \(type.identifier) is ignored"
            }
        }
        return nil
    }

    /// Whether a `drop-type` rule leaves `type` out of the copies it is offered in.
    public func drops(_ type: ContentType) -> Bool {
        droppedTypes.contains { Self.matches(type, pattern: $0) }
    }

    /// `item` without the representations a `drop-type` rule leaves out.
    public func keepingWanted(of item: PasteboardItem) -> PasteboardItem {
        guard !droppedTypes.isEmpty else { return item }
        return PasteboardItem(item.representations.filter { !drops($0.type) })
    }

    /// A setting that keeps items out of the history.
    public enum Rule: String, Sendable, CaseIterable {
        case ignoreApp = "ignore-app"
        case ignoreType = "ignore-type"
        case ignoreText = "ignore-text"
        case maxItemSize = "max-item-size"
    }

    /// Why an item must not be recorded, or nil to record it.
    public func rejection(of item: PasteboardItem, application: String?) -> String? {
        rejectingRule(of: item, application: application)?.reason
    }

    /// The rule that keeps `item` out of the history, or nil to record it: the same decision as
    /// `rejection(of:application:)`, for callers that count by rule (`pb import`).
    public func rule(rejecting item: PasteboardItem, application: String?) -> Rule? {
        rejectingRule(of: item, application: application)?.rule
    }

    private func rejectingRule(of item: PasteboardItem, application: String?) -> (rule: Rule, reason: String)? {
        if let reason = rejection(ofApplication: application) { return (.ignoreApp, reason) }
        for pattern in ignoredTypes {
            for type in item.types where Self.matches(type, pattern: pattern) {
                return (.ignoreType, "type \(type.identifier) is ignored")
            }
        }
        if let maxItemBytes, item.byteCount > maxItemBytes { return (.maxItemSize, "item larger than max-item-size") }
        if !ignoredText.isEmpty, let text = item.string {
            if ignoredText.contains(where: { $0.matches(text) }) { return (.ignoreText, "text matches an ignore-text rule") }
        }
        return nil
    }

    /// Whether `pattern` can name a type: a known type, or a prefix ending in `*` (`image/*`, `public.*`).
    public static func isTypePattern(_ pattern: String) -> Bool {
        if pattern.hasSuffix("*") {
            let prefix = pattern.dropLast()
            return !prefix.isEmpty && prefix.allSatisfy { $0.isLetter || $0.isNumber || "./-+_".contains($0) }
        }
        return ContentType.resolve(pattern) != nil
    }

    /// Whether no rule can reject an item from an unknown application (nothing to check).
    public var acceptsEveryItem: Bool { ignoredTypes.isEmpty && ignoredText.isEmpty && maxItemBytes == nil }

    static func matches(_ type: ContentType, pattern: String) -> Bool {
        let lower = pattern.lowercased()
        if lower.hasSuffix("*") {
            let prefix = String(lower.dropLast())
            return (type.preferredMIMEType?.lowercased().hasPrefix(prefix) ?? false) || type.identifier.lowercased().hasPrefix(prefix)
        }
        // A type kept verbatim matches by what its name means too: `text/plain` matches `text/plain;charset=utf-16`.
        if let resolved = ContentType.resolve(pattern) {
            return type.conforms(to: resolved) || type.canonicalType.conforms(to: resolved)
        }
        return false
    }
}
