public import ClipboardBackend
public import PasteboardModel

/// Decides, from the targets a selection owner offers, what a capture fetches — and whether to fetch nothing.
public enum TargetPlan {
    /// Text targets in order of preference; only the first one offered is fetched, they are the same text.
    public static let textTargets = [
        "UTF8_STRING", "text/plain;charset=utf-8", "text/plain;charset=UTF-8", "STRING", "TEXT", "text/plain", "COMPOUND_TEXT",
    ]

    /// What to fetch of an offer: the password hint first when offered (to check it), then one text target and
    /// every other distinct type. Secret markers (`ConcealedMarkers`) mean nothing at all.
    public static func decide(_ offered: [String]) -> FetchDecision {
        if ConcealedMarkers.isConcealed(offered) { return .secret }
        let passwordHint = ConcealedMarkers.passwordHint
        var fetch: [String] = []
        if offered.contains(passwordHint) { fetch.append(passwordHint) }
        var seenTypes: Set<ContentType> = []
        if let text = textTargets.first(where: offered.contains), let type = contentType(forTarget: text) {
            fetch.append(text)
            seenTypes.insert(type)
        }
        let hasPNG = offered.contains("image/png")
        for target in offered where !textTargets.contains(target) && target != passwordHint {
            guard let type = contentType(forTarget: target), !seenTypes.contains(type) else { continue }
            if isNoise(target) { continue }
            // Owners convert one picture into many formats on request; PNG keeps the pixels losslessly.
            if hasPNG && target != "image/png" && target.hasPrefix("image/") && target != "image/svg+xml" { continue }
            if type.conforms(to: .plainText) && !seenTypes.isEmpty && fetch.contains(where: textTargets.contains) { continue }
            seenTypes.insert(type)
            fetch.append(target)
        }
        return fetch.filter { $0 != passwordHint }.isEmpty ? .nothing : .fetch(fetch)
    }

    /// The content type stored for a target, or nil for meta targets (TARGETS, MULTIPLE, …).
    public static func contentType(forTarget target: String) -> ContentType? {
        if let type = ContentType(x11Target: target) { return type }
        // A custom identifier used directly as a target (com.example.profile).
        if !target.contains("/") && target.contains(".") && target.first?.isLowercase == true && !target.contains(" ") {
            return ContentType(target)
        }
        return nil
    }

    /// The target names an owner advertises for a representation.
    public static func targets(for type: ContentType) -> [String] {
        let targets = type.x11Targets
        if !targets.isEmpty { return targets }
        if type.isDynamic, let mime = type.preferredMIMEType { return [mime] }
        return [type.identifier]
    }

    static func isNoise(_ target: String) -> Bool {
        target.hasPrefix("application/x-qt-windows-mime") || target == "SAVE_TARGETS" || target.hasPrefix("_")
    }
}
