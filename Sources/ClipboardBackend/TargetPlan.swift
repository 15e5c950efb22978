public import FoundationEssentials
public import PasteboardModel

/// The one rule, for X11 and Wayland alike, of what a capture reads of an offer (and whether it reads nothing), how
/// what it read becomes an item, and under which names an item is offered again.
///
/// Every type is kept verbatim: a representation keeps the name it was offered under (`contentType(forTarget:)`:
/// `text/plain;charset=utf-16`, `text/_moz_htmlcontext`, LibreOffice's names with `;windows_formatname="…"`) and
/// the owner's own bytes, and is served back under exactly that name. The text is the exception that proves the
/// rule: an owner offers one text under several names (`UTF8_STRING`, `text/plain;charset=utf-8`, `text/plain`,
/// `STRING`, …). The first is the item's text; each other MIME name is kept apart only when its bytes differ
/// (Firefox's and GTK's `text/plain` escape what is not ASCII), and X11's own text targets are converted from the
/// UTF-8 text when served.
public enum TargetPlan {
    /// Text targets in order of preference; the first one offered is the item's text.
    public static let textTargets = [
        "UTF8_STRING", "text/plain;charset=utf-8", "text/plain;charset=UTF-8", "STRING", "TEXT", "text/plain", "COMPOUND_TEXT",
    ]

    /// X11's own text targets: not read beside the item's text, but served from it, converted (see `X11Text`).
    /// Owners differ in what they make of characters outside Latin-1 (GTK 3 escapes them in `STRING`, Qt 5
    /// writes `?`, GTK 4.8 writes UTF-8 read as Latin-1 and a NUL), so their bytes would say nothing more.
    public static let x11TextTargets: Set<String> = ["STRING", "TEXT", "COMPOUND_TEXT", "C_STRING"]

    /// The largest text, in bytes, whose other names (aliases) are read too, to keep those whose bytes differ. A
    /// larger text's aliases are served with its bytes.
    public static let aliasLimit = 1 << 20

    // MARK: - What to read

    /// What to fetch of an offer, best first: the item's text, then the picture, then every other type in the
    /// owner's order, then the text's aliases, without the types `drops` names. Secret markers
    /// (`ConcealedMarkers`) mean nothing at all; volatile markers (`VolatileMarkers`) are never fetched, nor X11's
    /// own text targets beside the text, nor the other encodings of a picture offered as PNG (the owner converts
    /// one picture on request). (The capture engine reads Chromium's web custom data first, to look for secret
    /// markers in it before anything else is read, but keeps the item in this order.)
    public static func decide(_ offered: [String], drops: (String) -> Bool = { _ in false }) -> FetchDecision {
        if ConcealedMarkers.isConcealed(offered) { return .secret }
        var fetch: [String] = []
        var claimed: Set<ContentType> = []
        // Every name a claimed type is offered under: a later target of one of those names is an alias.
        var claimedNames: Set<String> = []
        var hasPicture = false
        func claim(_ type: ContentType) {
            claimed.insert(type)
            claimedNames.formUnion(targets(for: type))
            hasPicture = hasPicture || type.conforms(to: .image)
        }
        let primary = textTargets.first { offered.contains($0) && !drops($0) }
        if let primary, let type = textType(forTarget: primary) {
            fetch.append(primary)
            claim(type)
        }
        let hasPNG = offered.contains("image/png")
        var others: [String] = []
        var aliases: [String] = []
        var seen: Set<String> = primary.map { [$0] } ?? []
        for target in offered where seen.insert(target).inserted {
            guard let type = contentType(forTarget: target) else { continue }
            if isNoise(target) || VolatileMarkers.isVolatile(target) || drops(target) { continue }
            if primary != nil && x11TextTargets.contains(target) { continue }
            if hasPNG && target != "image/png" && isPictureEncoding(target) { continue }
            // An alias, or a name meaning a claimed type that it is not offered under (LibreOffice's `UTF-8`):
            // read after the rest, to keep whichever is not served anyway.
            if claimedNames.contains(target) || claimed.contains(type) {
                aliases.append(target)
                continue
            }
            let isFirstPicture = type.conforms(to: .image) && !hasPicture
            claim(type)
            if isFirstPicture {
                fetch.append(target)  // the picture comes right after the text: a reader without text wants it
            } else {
                others.append(target)
            }
        }
        fetch += others + aliases
        return fetch.isEmpty ? .nothing : .fetch(fetch)
    }

    /// Whether a capture that has read `received` (in the plan's order) still reads `target`: not an alias of a
    /// representation larger than `aliasLimit`, which `item(from:)` would not keep apart anyway.
    public static func reads(_ target: String, after received: [(target: String, data: Data)]) -> Bool {
        var kept = Kept()
        for (name, data) in received { kept.add(name, data) }
        guard let representation = kept.names[target] else { return true }
        return representation.byteCount <= aliasLimit
    }

    /// Names under which toolkits offer an encoding of the picture they hold, besides `image/*`: gdk-pixbuf's ICO
    /// aliases (GTK offers `text/ico` and `application/ico` with every image) and Qt's own image target.
    static let pictureAliases: Set<String> = ["text/ico", "application/ico", "application/x-qt-image"]

    /// Whether `target` is one more encoding of a picture (SVG is not: it is a drawing of its own).
    static func isPictureEncoding(_ target: String) -> Bool {
        let lower = target.lowercased()
        return (lower.hasPrefix("image/") && !lower.hasPrefix("image/svg")) || pictureAliases.contains(lower)
    }

    static func isNoise(_ target: String) -> Bool {
        target.hasPrefix("application/x-qt-windows-mime") || target == "SAVE_TARGETS" || target.hasPrefix("_")
    }

    // MARK: - What to keep

    /// The item a capture keeps of what it read: `received` holds each target read and its bytes, in the plan's
    /// order of preference.
    ///
    /// - The first text target is the item's text, as its canonical type (`.utf8PlainText` for `UTF8_STRING` or
    ///   any spelling of `text/plain;charset=utf-8`); `STRING`, ISO Latin-1, becomes UTF-8 text. A name the
    ///   canonical type is not offered under (`text/plain;charset=UTF-8`, `TEXT`) is kept under its own name too.
    /// - A name some kept representation is offered under anyway (an alias: `text/plain` beside `UTF8_STRING`) is
    ///   kept apart only when both are at most `aliasLimit` bytes and its bytes differ: as its canonical type
    ///   (`text/plain` is `.plainText`), or else verbatim (`dyn.mime.text/plain;charset=utf-8`).
    /// - Every other target is kept as `contentType(forTarget:)`, or verbatim when that type is taken (LibreOffice's
    ///   `UTF-8` beside `UTF8_STRING` is `dyn.x11.UTF-8`, with the same bytes: otherwise its name would be lost).
    ///
    /// Empty answers are not content: GTK answers a conversion it failed with no bytes.
    public static func item(from received: [(target: String, data: Data)]) -> PasteboardItem {
        var kept = Kept()
        for (target, data) in received { kept.add(target, data) }
        return kept.item
    }

    /// An item being made of what a capture read, with the names its representations are offered under.
    struct Kept {
        var item = PasteboardItem()
        /// Each name a kept representation is offered under → that representation (the first to have it).
        var names: [String: PasteboardItem.Representation] = [:]
        var types: Set<ContentType> = []
        var hasText = false

        mutating func add(_ target: String, _ data: Data) {
            guard !data.isEmpty else { return }
            if let kept = names[target] {
                guard data.count <= aliasLimit, kept.byteCount <= aliasLimit, data != kept.data,
                    let type = typeKept(for: target, besides: types)
                else { return }
                keep(data, as: type)
            } else if !hasText, textTargets.contains(target), let type = textType(forTarget: target) {
                hasText = true
                keep(target == "STRING" ? utf8(fromLatin1: data) : data, as: type)
                keepName(target, data, besides: type)
            } else if let type = typeKept(for: target, besides: types) {
                keep(data, as: type)
                keepName(target, data, besides: type)
            }
        }

        /// Keeps `data` under `target`'s verbatim name too when `type` is not offered under it (the text read as
        /// `text/plain;charset=UTF-8` or `TEXT`), so that the name is offered again.
        private mutating func keepName(_ target: String, _ data: Data, besides type: ContentType) {
            guard !targets(for: type).contains(target), let verbatim = ContentType(verbatimName: target),
                !types.contains(verbatim)
            else { return }
            keep(data, as: verbatim)
        }

        private mutating func keep(_ data: Data, as type: ContentType) {
            let representation = PasteboardItem.Representation(type: type, data: data)
            item.setRepresentation(representation)
            types.insert(type)
            for name in targets(for: type) where names[name] == nil { names[name] = representation }
        }
    }

    /// The content type stored for a target, or nil for meta targets (TARGETS, MULTIPLE, …): the type that keeps
    /// its name (see `ContentType(offeredName:)`), or a custom identifier used directly as a target
    /// (`com.example.profile`).
    public static func contentType(forTarget target: String) -> ContentType? {
        if let type = ContentType(offeredName: target) { return type }
        if !target.contains("/") && target.contains(".") && target.first?.isLowercase == true && !target.contains(" ") {
            return ContentType(target)
        }
        return nil
    }

    /// The type the item's text read from `target` is kept as: UTF-8 text for `STRING` (converted from Latin-1),
    /// else the canonical type of the name.
    static func textType(forTarget target: String) -> ContentType? {
        target == "STRING" ? .utf8PlainText : ContentType(x11Target: target)
    }

    /// The type to keep `target`'s bytes as, beside representations of `types`: `contentType(forTarget:)`, or when
    /// that is taken, the dynamic type of the verbatim name (`ContentType(verbatimName:)`); nil when neither can be
    /// had.
    static func typeKept(for target: String, besides types: Set<ContentType>) -> ContentType? {
        guard let type = contentType(forTarget: target) else { return nil }
        if !types.contains(type) { return type }
        guard let verbatim = ContentType(verbatimName: target), !types.contains(verbatim) else { return nil }
        return verbatim
    }

    static func utf8(fromLatin1 data: Data) -> Data {
        var text = String.UnicodeScalarView()
        for byte in data { text.append(Unicode.Scalar(byte)) }
        return Data(String(text).utf8)
    }

    // MARK: - Serving

    /// The target names an owner advertises for a representation of `type`, its own name first.
    public static func targets(for type: ContentType) -> [String] {
        // A file URL has no MIME type of its own (pb import makes them): offered as the file managers' types.
        if type == .fileURL { return [Self.uriListName, Self.copiedFilesName] }
        let targets = type.x11Targets
        if !targets.isEmpty { return targets }
        if type.isDynamic, let mime = type.preferredMIMEType { return [mime] }
        return [type.identifier]
    }

    /// One name an owned item is offered under, and the bytes served for it.
    public struct ServedTarget: Sendable, Equatable {
        /// How the served bytes are made from the representation's.
        public enum Conversion: Sendable, Equatable {
            /// ICCCM `STRING`, from UTF-8 text (`X11Text.latin1(fromUTF8:)`).
            case latin1
            /// Compound Text, from UTF-8 text (`X11Text.compoundText(fromUTF8:)`), for `COMPOUND_TEXT` and `TEXT`.
            case compoundText
            /// `text/uri-list` from a file URL: the URL and CRLF.
            case uriList
            /// `x-special/gnome-copied-files` from a file URL: `copy`, a line break, the URL.
            case copiedFiles

            public func apply(to data: Data) -> Data {
                switch self {
                case .latin1: return X11Text.latin1(fromUTF8: data)
                case .compoundText: return X11Text.compoundText(fromUTF8: data)
                case .uriList: return Data((Self.url(in: data) + "\r\n").utf8)
                case .copiedFiles: return Data(("copy\n" + Self.url(in: data)).utf8)
                }
            }

            /// The type an X11 reply carries: the encoding for text (also for `TEXT`, ICCCM 2.7.1); nil where it is
            /// the target itself.
            public var replyType: String? {
                switch self {
                case .latin1: return "STRING"
                case .compoundText: return "COMPOUND_TEXT"
                case .uriList, .copiedFiles: return nil
                }
            }

            /// The URL a file-URL representation holds, without surrounding white space.
            private static func url(in data: Data) -> String {
                String(decoding: data, as: UTF8.self).trimmingWhitespace()
            }
        }

        public let name: String
        /// The index of the representation in the item.
        public let representation: Int
        /// Nil: the representation's bytes as they are.
        public let conversion: Conversion?
    }

    /// Every name `item` is offered under, in order, with the representation that answers it: each
    /// representation's own name (the first of `targets(for:)`, the exact name it was offered under) is its own,
    /// and the other names a representation is offered under (the UTF-8 text's `text/plain`, `STRING`, …) go to
    /// the first representation that has them, when no representation has them as its own name. `STRING`, `TEXT`
    /// and `COMPOUND_TEXT` of the UTF-8 text are converted.
    static let uriListName = "text/uri-list"
    static let copiedFilesName = "x-special/gnome-copied-files"

    public static func servedTargets(for item: PasteboardItem) -> [ServedTarget] {
        let names = item.representations.map { targets(for: $0.type) }
        var owner: [String: Int] = [:]
        for (index, list) in names.enumerated() {
            if let own = list.first, owner[own] == nil { owner[own] = index }
        }
        for (index, list) in names.enumerated() {
            for name in list where owner[name] == nil { owner[name] = index }
        }
        var served: [ServedTarget] = []
        var listed: Set<String> = []
        for (index, list) in names.enumerated() {
            let isText = item.representations[index].type == .utf8PlainText
            for name in list where owner[name] == index && listed.insert(name).inserted {
                var conversion: ServedTarget.Conversion?
                if isText && name == "STRING" { conversion = .latin1 }
                if isText && (name == "TEXT" || name == "COMPOUND_TEXT") { conversion = .compoundText }
                if item.representations[index].type == .fileURL {
                    conversion = name == Self.uriListName ? .uriList : .copiedFiles
                }
                served.append(ServedTarget(name: name, representation: index, conversion: conversion))
            }
        }
        return served
    }
}
