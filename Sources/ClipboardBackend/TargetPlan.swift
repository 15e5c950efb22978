public import PasteboardModel

/// Decides, from the targets (X11) or MIME types (Wayland) a selection owner offers, what a capture fetches — and
/// whether to fetch nothing.
public enum TargetPlan {
    /// Text targets in order of preference; only the first one offered is fetched, they are the same text.
    public static let textTargets = [
        "UTF8_STRING", "text/plain;charset=utf-8", "text/plain;charset=UTF-8", "STRING", "TEXT", "text/plain", "COMPOUND_TEXT",
    ]

    /// What to fetch of an offer, best first: one text target, then the picture, then every other distinct type
    /// in the owner's order, without the types `drops` names. Secret markers (`ConcealedMarkers`) mean nothing
    /// at all; volatile markers (`VolatileMarkers`) are never fetched, nor are the other encodings of a picture
    /// offered as PNG. (The capture engine reads Chromium's web custom data first, to look for secret markers in
    /// it before anything else is read, but keeps the item in this order.)
    public static func decide(_ offered: [String], drops: (String) -> Bool = { _ in false }) -> FetchDecision {
        if ConcealedMarkers.isConcealed(offered) { return .secret }
        var fetch: [String] = []
        var seenTypes: Set<ContentType> = []
        if let text = textTargets.first(where: { offered.contains($0) && !drops($0) }),
            let type = contentType(forTarget: text)
        {
            fetch.append(text)
            seenTypes.insert(type)
        }
        let hasPNG = offered.contains("image/png")
        var others: [String] = []
        for target in offered where !textTargets.contains(target) {
            guard let type = contentType(forTarget: target), !seenTypes.contains(type) else { continue }
            if isNoise(target) || VolatileMarkers.isVolatile(target) || drops(target) { continue }
            // Owners convert one picture into many formats on request; PNG keeps the pixels losslessly.
            if hasPNG && target != "image/png" && isPictureEncoding(target) { continue }
            if type.conforms(to: .plainText) && !seenTypes.isEmpty && fetch.contains(where: textTargets.contains) { continue }
            seenTypes.insert(type)
            let isFirstPicture =
                type.conforms(to: .image) && !fetch.contains { contentType(forTarget: $0)?.conforms(to: .image) == true }
            if isFirstPicture {
                fetch.append(target)  // the picture comes right after the text: a reader without text wants it
            } else {
                others.append(target)
            }
        }
        fetch += others
        return fetch.isEmpty ? .nothing : .fetch(fetch)
    }

    /// Names under which toolkits offer an encoding of the picture they hold, besides `image/*`: gdk-pixbuf's ICO
    /// aliases (GTK offers `text/ico` and `application/ico` with every image) and Qt's own image target.
    static let pictureAliases: Set<String> = ["text/ico", "application/ico", "application/x-qt-image"]

    /// Whether `target` is one more encoding of a picture (SVG is not: it is a drawing of its own).
    static func isPictureEncoding(_ target: String) -> Bool {
        let lower = target.lowercased()
        return (lower.hasPrefix("image/") && !lower.hasPrefix("image/svg")) || pictureAliases.contains(lower)
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
