import Foundation
public import PasteboardModel

/// User rules deciding what is never recorded, from the configuration file:
///
/// ```
/// ignore-app = KeePassXC            # the copying application (X11: WM_CLASS; case-insensitive)
/// ignore-type = image/*             # a MIME type, identifier or extension; * matches any tail
/// ignore-text = ^\d{6}$             # a regular expression on the text (one-time codes)
/// max-item-size = 50M               # larger items are not recorded
/// primary = on                      # also record the PRIMARY selection (coalesced)
/// ```
public struct CaptureRules: Sendable {
    public var ignoredApplications: [String] = []
    public var ignoredTypes: [String] = []
    public var ignoredText: [TextRule] = []
    public var maxItemBytes: Int?
    public var capturesPrimary = false

    public init() {}

    /// Why a copy from `application` must not even be read, or nil.
    public func rejection(ofApplication application: String?) -> String? {
        guard let application,
            ignoredApplications.contains(where: { $0.caseInsensitiveCompare(application) == .orderedSame })
        else { return nil }
        return "application \(application) is ignored"
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

    /// Whether no rule can reject an item from an unknown application (nothing to check).
    public var acceptsEveryItem: Bool { ignoredTypes.isEmpty && ignoredText.isEmpty && maxItemBytes == nil }

    static func matches(_ type: ContentType, pattern: String) -> Bool {
        let lower = pattern.lowercased()
        if lower.hasSuffix("*") {
            let prefix = String(lower.dropLast())
            return (type.preferredMIMEType?.lowercased().hasPrefix(prefix) ?? false) || type.identifier.lowercased().hasPrefix(prefix)
        }
        if let resolved = ContentType.resolve(pattern) { return type.conforms(to: resolved) }
        return false
    }
}
