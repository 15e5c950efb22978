import ArgumentParsing
import FoundationEssentials
import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PatternMatching
import TextSupport

/// Streams `ID<TAB>preview` lines newest first, straight from one query: a picker gets the first line at once and
/// the whole list without the history ever sitting in memory. A preview is ASCII without controls (`ItemText` makes
/// them spaces) or goes through `escapedForTerminal`, as every listing does.
func writeDmenuLines(pinnedOnly: Bool, type: ContentType?, limit: Int?, store: HistoryStore, output: Output) throws {
    var line: [UInt8] = []
    line.reserveCapacity(1024)
    var written = 0
    try store.forEachPreview(pinnedOnly: pinnedOnly, type: type, limit: limit) { id, preview in
        line.removeAll(keepingCapacity: true)
        JSONBytes.append(integer: id, to: &line)
        line.append(0x09)
        if preview.contains(where: { $0 >= 0x80 }) {
            line.append(contentsOf: escapedForTerminal(String(decoding: preview, as: UTF8.self)).utf8)
        } else {
            line.append(contentsOf: preview)
        }
        line.append(0x0A)
        line.withUnsafeBytes { output.write($0) }
        written += 1
        if written == 1 { output.flush() }
    }
}

enum HistoryCommand: Command {
    static let spec = CommandSpec(
        name: "history", abstract: "List the clipboard history, newest first.",
        options: [
            .init("limit", short: "n", value: "N", help: "Show at most N items (default 50; all for --format dmenu)."),
            .init("type", short: "t", value: "TYPE", help: "Only items with a representation of TYPE (text, image, url, png, …)."),
            .init("pinned", help: "Only pinned items."),
            .init("json", help: "Print a JSON array."),
            .init("format", value: "FORMAT", help: "table (default), dmenu (ID<TAB>preview, for pickers) or json."),
        ],
        discussion: "A '*' after the id marks a pinned item. Previews show control, bidirectional and zero-width\ncharacters escaped (as \\u{202e}), in every format; 'pb decode' gives the bytes.\n\nEXAMPLES:\n  pb history\n  pb history --type image --limit 5\n  pb history --format dmenu | fzf | pb decode | pb copy")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let format = try ItemFormat.from(json: arguments.flag("json"), format: arguments.value("format"))
        let limit = try arguments.positiveInteger("limit")
        let type = try resolveType(arguments.value("type"))
        let store = try context.store()
        if format == .dmenu {
            try writeDmenuLines(
                pinnedOnly: arguments.flag("pinned"), type: type, limit: limit, store: store, output: context.stdout)
            return
        }
        let query = HistoryQuery(type: type, pinnedOnly: arguments.flag("pinned"), limit: limit ?? 50)
        format.write(try store.items(query), to: context.stdout)
    }
}

enum SearchCommand: Command {
    static let spec = CommandSpec(
        name: "search", abstract: "Find history items containing text or matching a regex, ignoring accents and case.",
        options: [
            .init("regex", short: "e", help: "Treat QUERY as a regular expression."),
            .init("limit", short: "n", value: "N", help: "Show at most N items (default 50)."),
            .init("type", short: "t", value: "TYPE", help: "Only items with a representation of TYPE."),
            .init("pinned", help: "Only pinned items."),
            .init("json", help: "Print a JSON array."),
            .init("format", value: "FORMAT", help: "table (default), dmenu or json."),
        ],
        positionals: [.init("QUERY", help: "Text to find.")],
        discussion: "Text and regular expressions ignore accents and case (\"cafe\" finds \"Café\"); (?-i) in a regex makes it mind case. Exits 1 when nothing matches. Previews are escaped as in 'pb history'.\n\nEXAMPLES:\n  pb search invoice\n  pb search --regex '^https?://' --limit 10")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let format = try ItemFormat.from(json: arguments.flag("json"), format: arguments.value("format"))
        let text = arguments.positionals[0]
        if text.isEmpty { throw CommandUsageError("The search text is empty.") }
        if arguments.flag("regex") {
            // A pattern that is not one is a usage error (exit 64), found before the store is opened.
            do {
                _ = try Pattern(text)
            } catch {
                throw CommandUsageError(error.message)
            }
        }
        let query = HistoryQuery(
            text: text, isRegex: arguments.flag("regex"), type: try resolveType(arguments.value("type")),
            pinnedOnly: arguments.flag("pinned"), limit: try arguments.positiveInteger("limit") ?? 50)
        let store = try context.store()
        let items = try store.items(query)
        format.write(items, to: context.stdout)
        if try store.hasSearchBacklog() {
            context.stderr.line(
                "Note: the search index is catching up after an import ('pb stats' says how far); the items "
                    + "not indexed yet were read one by one: nothing is missed, but the search is slower until then.")
        }
        if items.isEmpty && format != .json { throw CommandFailure("No items match \(quoted(text)).") }
    }
}

enum ShowCommand: Command {
    /// How much of an item's text `pb show` prints without `--full`.
    static let shownTextBytes = 64 << 10

    /// A line saying that the item's HTML shows pictures from LibreOffice's temporary files (see `TemporaryFiles`),
    /// and how many of them are gone already; nil for an item without such pictures.
    static func temporaryFilesNote(_ item: PasteboardItem) -> String? {
        let pictures = TemporaryFiles.pictures(in: item)
        guard !pictures.isEmpty else { return nil }
        let gone = pictures.filter { url in
            guard let path = URL(string: url)?.path else { return true }
            return !FileManager.default.fileExists(atPath: path)
        }.count
        let count = pictures.count == 1 ? "1 picture" : "\(pictures.count) pictures"
        let state = gone == 0 ? "" : gone == pictures.count ? " (gone already)" : " (\(gone) gone already)"
        return "its HTML shows \(count) from LibreOffice's temporary files, which go when LibreOffice exits\(state)"
    }

    /// `bytes` without a UTF-8 sequence cut short at its end.
    static func cutAtCharacterBoundary(_ bytes: Data) -> Data {
        var start = bytes.endIndex
        // The last sequence starts at most 3 bytes back: at the last byte that is not a continuation byte.
        while start > bytes.startIndex, bytes.endIndex - start < 4 {
            start -= 1
            if bytes[start] & 0xC0 != 0x80 { break }
        }
        guard start < bytes.endIndex else { return bytes }
        let lead = bytes[start]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return bytes.endIndex - start < length ? bytes[..<start] : bytes
    }

    static let spec = CommandSpec(
        name: "show", abstract: "Show one item: its details, representations and text.",
        options: [
            .init("json", help: "Print JSON."),
            .init("raw", help: "Print the text as stored, terminal control sequences included."),
            .init("full", help: "Print all of the text, not just its first 64 KiB."),
        ],
        positionals: [.init("ID", help: "The item's id.")],
        discussion: "Control characters in the text (escape sequences that could retitle or clear the terminal) are\nshown escaped, as \\e or \\u{7}, unless --raw is given.\nThe text is cut after 64 KiB unless --full is given; 'pb paste' writes it whole.")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let id = try ItemIDs.parse(arguments.positionals[0])
        let store = try context.store()
        let item = try store.item(id: id)
        let payload = try store.pasteboardItem(id: id)
        if arguments.flag("json") {
            var fields = ItemFormat.jsonFields(item)
            fields.append((
                "representations",
                .array(payload.representations.map { rep in
                    .object([
                        ("type", .string(rep.type.identifier)),
                        ("mime", rep.type.preferredMIMEType.map { .string($0) } ?? .null),
                        ("size", .number(Double(rep.data.count))),
                    ])
                })
            ))
            fields.append(("asksBeforePaste", .bool(item.asksBeforePaste)))
            fields.append(("recognizedText", try store.recognizedText(id: id).map { .string($0) } ?? .null))
            let pictures = TemporaryFiles.pictures(in: payload)
            if !pictures.isEmpty { fields.append(("temporaryFiles", .array(pictures.map { .string($0) }))) }
            fields.append((
                "pastes",
                .array(try store.pasteLog(itemID: id).map { paste in
                    .object([
                        ("time", .string(JSONText.date(paste.date))),
                        ("reader", paste.reader.map { .string($0) } ?? .null),
                        ("pid", paste.readerPID.map { .number(Double($0)) } ?? .null),
                        ("outcome", .string(paste.outcome.rawValue)),
                    ])
                })
            ))
            context.stdout.line(JSONText.object(fields))
            return
        }
        let out = context.stdout
        out.line("id:          \(item.id)\(item.isPinned ? " (pinned)" : "")")
        out.line("kind:        \(item.kind.rawValue)")
        out.line("copied:      \(JSONText.date(item.lastCopied)) (\(Age.ago(item.lastCopied))), \(item.copyCount)×")
        out.line("first:       \(JSONText.date(item.created))")
        if let source = item.source { out.line("source:      \(escapedForTerminal(source, limit: 200))") }
        if let expires = item.expiresAt { out.line("expires:     \(JSONText.date(expires))") }
        out.line("size:        \(ByteCountFormatting.string(item.size))")
        if item.asksBeforePaste { out.line("paste:       asks first (Allow Paste)") }
        if let note = Self.temporaryFilesNote(payload) { out.line("note:        \(note)") }
        let pastes = try store.pasteLog(itemID: id, limit: 10)
        if !pastes.isEmpty {
            out.line("pasted by:")
            for paste in pastes {
                let reader = paste.reader.map { escapedForTerminal($0, limit: 200) } ?? "an unknown application"
                let pid = paste.readerPID.map { " (pid \($0))" } ?? ""
                out.line("  \(JSONText.date(paste.date))  \(reader)\(pid): \(paste.outcome.rawValue)")
            }
        }
        out.line("types:")
        for rep in payload.representations {
            out.line("  \(escapedForTerminal(rep.type.identifier, limit: 200).padded(to: 28)) \((rep.type.preferredMIMEType ?? "-").padded(to: 26)) \(ByteCountFormatting.string(rep.byteCount))")
        }
        if let type = payload.bestType(among: PasteCommand.textPreference), let data = payload.data(forType: type) {
            out.line()
            let limit = arguments.flag("full") ? data.count : Self.shownTextBytes
            var shown = data.prefix(limit)
            // Cut at a character boundary: never print half of a UTF-8 sequence.
            if shown.count < data.count { shown = Self.cutAtCharacterBoundary(shown) }
            let text = String(decoding: shown, as: UTF8.self)
            out.write(arguments.flag("raw") ? text : escapedForTerminal(text, keeping: ["\n", "\t"]))
            if shown.last != 0x0A { out.line() }
            if shown.count < data.count {
                out.line("… \(ByteCountFormatting.string(data.count - shown.count)) more (pb show --full \(id), or pb paste after pb restore \(id))")
            }
        }
        // The words the daemon read in its picture (see `ocr` in the configuration): what search finds it by.
        if let recognized = try store.recognizedText(id: id) {
            out.line()
            out.line("Recognized text:")
            out.write(arguments.flag("raw") ? recognized : escapedForTerminal(recognized, keeping: ["\n", "\t"]))
            if !recognized.hasSuffix("\n") { out.line() }
        }
    }
}

enum PinCommand: Command {
    static let spec = CommandSpec(
        name: "pin", abstract: "Pin items: kept forever, exempt from retention.",
        positionals: [.init("ID", help: "Item ids.", repeating: true)])

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        try setPinned(true, arguments, context)
    }

    static func setPinned(_ pinned: Bool, _ arguments: ParsedArguments, _ context: Context) throws {
        let ids = ItemIDs.unique(try arguments.positionals.map(ItemIDs.parse))
        let store = try context.store()
        try store.setPinned(pinned, ids: ids)  // all or nothing: every id is checked first
        context.stdout.line("\(pinned ? "Pinned" : "Unpinned") \(ItemIDs.list(ids)).")
    }
}

enum UnpinCommand: Command {
    static let spec = CommandSpec(
        name: "unpin", abstract: "Unpin items.", positionals: [.init("ID", help: "Item ids.", repeating: true)])

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        try PinCommand.setPinned(false, arguments, context)
    }
}

enum DeleteCommand: Command {
    static let spec = CommandSpec(
        name: "delete", abstract: "Delete items from the history (their payloads too).",
        positionals: [.init("ID", help: "Item ids.", repeating: true)],
        discussion: "Nothing of a deleted item stays on disk. When the clipboard holds one, it is cleared too.")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let ids = ItemIDs.unique(try arguments.positionals.map(ItemIDs.parse))
        let store = try context.store()
        // All or nothing: every id is checked first. Headless, the store empties the clipboard itself when it
        // holds a deleted item.
        try store.deleteAll(ids: ids)
        if let problem = context.forgetOnDisplay(ids) {
            throw CommandFailure(
                "Deleted from the history, but it could not be taken off the clipboard (\(problem)). "
                    + "Run 'pb clear --keep-pinned' or copy something else to replace it on the clipboard.")
        }
        context.stdout.line("Deleted \(ItemIDs.list(ids)).")
    }
}

enum ClearCommand: Command {
    static let spec = CommandSpec(
        name: "clear", abstract: "Delete the whole history, and clear the clipboard.",
        options: [
            .init("keep-pinned", help: "Keep pinned items."),
            .init("keep-clipboard", help: "Leave the clipboard's current contents where they are."),
        ],
        discussion:
            "Nothing of a deleted item stays on disk.\n\nEXAMPLES:\n  pb clear\n  pb clear --keep-pinned --keep-clipboard")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let keepClipboard = arguments.flag("keep-clipboard")
        let store = try context.store()
        // Headless, the clipboard is the store's general pasteboard, emptied in the same transaction.
        // Watchers learn of it (and of pins and deletes) from the store's change feed, through the daemon.
        let count = try store.clear(keepPinned: arguments.flag("keep-pinned"), keepingClipboard: keepClipboard)
        if !keepClipboard {
            let clipboard = try context.clipboard()
            if clipboard.kind.hasDisplay {
                do {
                    try clipboard.clear(store: store)
                } catch {
                    throw CommandFailure("Deleted \(count) item\(count == 1 ? "" : "s"), but \(error.message)", cause: error)
                }
            }
        }
        context.stdout.line("Deleted \(count) item\(count == 1 ? "" : "s").")
    }
}

enum StatsCommand: Command {
    static let spec = CommandSpec(
        name: "stats", abstract: "Show what the history holds and what it costs on disk.",
        options: [.init("json", help: "Print JSON.")],
        discussion:
            "Every payload kept in a file (the large ones) is read and checked against its hash: missing and damaged "
            + "ones are counted. 'pb doctor --check' checks every payload.")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let store = try context.store()
        let stats = try store.stats()
        let recognition = try store.recognitionProgress()
        let out = context.stdout
        if arguments.flag("json") {
            out.line(JSONText.object([
                ("items", .number(Double(stats.itemCount))), ("pinned", .number(Double(stats.pinnedCount))),
                ("kinds", .object(stats.kinds.map { ($0.kind.rawValue, .object([("count", .number(Double($0.count))), ("bytes", .number(Double($0.bytes)))])) })),
                ("payloadBytes", .number(Double(stats.payloadBytes))), ("blobs", .number(Double(stats.blobCount))),
                ("fileBlobs", .number(Double(stats.fileBlobCount))), ("fileBlobBytes", .number(Double(stats.fileBlobBytes))),
                ("missingPayloads", .number(Double(stats.missingPayloads))),
                ("damagedPayloads", .number(Double(stats.damagedPayloads))),
                ("databaseBytes", .number(Double(stats.databaseBytes))), ("walBytes", .number(Double(stats.walBytes))),
                ("indexBytes", .number(Double(stats.indexBytes))), ("unindexedItems", .number(Double(stats.unindexedCount))),
                ("reclaimableBytes", .number(Double(stats.reclaimableBytes))),
                ("images", .number(Double(recognition.images))), ("imagesRecognized", .number(Double(recognition.done))),
                ("store", .string(store.location.directory.path)), ("schema", .number(Double(stats.schemaVersion))),
            ]))
            return
        }
        out.line("store:        \(store.location.directory.path)")
        out.line("items:        \(stats.itemCount) (\(stats.pinnedCount) pinned)")
        for kind in stats.kinds {
            out.line("  \(kind.kind.rawValue.padded(to: 10)) \(String(kind.count).leftPadded(to: 9))  \(ByteCountFormatting.string(kind.bytes))")
        }
        out.line("payloads:     \(stats.blobCount) distinct, \(ByteCountFormatting.string(stats.payloadBytes)) (\(stats.fileBlobCount) as files, \(ByteCountFormatting.string(stats.fileBlobBytes)))")
        if stats.missingPayloads > 0 || stats.damagedPayloads > 0 {
            out.line(
                "  PROBLEM: \(stats.missingPayloads) missing, \(stats.damagedPayloads) damaged (run 'pb doctor --check')")
        }
        out.line("database:     \(ByteCountFormatting.string(stats.databaseBytes)) + WAL \(ByteCountFormatting.string(stats.walBytes))")
        out.line("search index: \(ByteCountFormatting.string(stats.indexBytes))")
        if stats.unindexedCount > 0 {
            out.line("  \(stats.unindexedCount) items not indexed yet (search finds them all the same; the daemon, or the next 'pb import', indexes them)")
        }
        if recognition.images > 0 {
            // Looked at, whatever came of it; the rest waits for the daemon (or ocr = off in the configuration).
            let other = RecognitionOutcome.allCases.filter { $0 != .recognized }.compactMap { outcome -> String? in
                guard let count = recognition.outcomes[outcome], count > 0 else { return nil }
                return "\(count) \(outcome.rawValue == "timedOut" ? "timed out" : outcome.rawValue)"
            }
            out.line(
                "image text:   \(Self.grouped(recognition.done)) of \(Self.grouped(recognition.images)) images read"
                    + (other.isEmpty ? "" : " (" + other.joined(separator: ", ") + ")"))
        }
        out.line("reclaimable:  \(ByteCountFormatting.string(stats.reclaimableBytes)) (run 'pb prune --vacuum')")
    }

    /// 10000 as "10,000".
    static func grouped(_ number: Int) -> String {
        var digits = Array(String(number))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}

enum PruneCommand: Command {
    static let spec = CommandSpec(
        name: "prune", abstract: "Apply retention now: drop old unpinned items and expired ones.",
        options: [
            .init("max-items", value: "N", help: "Keep at most N unpinned items."),
            .init("max-bytes", value: "SIZE", help: "Keep unpinned items totalling at most SIZE (500M, 2G)."),
            .init("max-age", value: "DURATION", help: "Drop unpinned items older than DURATION (30d, 12h)."),
            .init("kind", value: "KIND", help: "The limits given count only items of KIND (text, url, html, image, file, data)."),
            .init("vacuum", help: "Then pack payloads stored unpacked and return free space to the file system."),
        ],
        discussion: "Without limits, the limits in the configuration file apply (max-items, max-bytes, max-age, and\n"
            + "per kind: max-age.image = 7d). With --kind, the limits given replace that kind's, the others apply as\n"
            + "configured: 'pb prune --kind image --max-age 7d' drops unpinned images older than a week.")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let store = try context.store()
        var configured = store.retention ?? RetentionPolicy()
        let kind = arguments.value("kind")
        if let kind, !RetentionPolicy.kinds.contains(kind) {
            throw CommandUsageError(
                "--kind needs a kind of item (\(RetentionPolicy.kinds.joined(separator: ", "))), not \(quoted(kind)).")
        }
        var policy = kind.map { configured.byKind[$0] ?? RetentionPolicy() } ?? configured
        if let items = arguments.value("max-items") {
            guard let count = Int(items), count >= 0 else { throw CommandUsageError("--max-items needs a whole number, not \(quoted(items)).") }
            policy.maxItems = count
        }
        if let bytes = arguments.value("max-bytes") {
            guard let size = Units.bytes(bytes) else { throw CommandUsageError("--max-bytes needs a size like 500M or 2G, not \(quoted(bytes)).") }
            policy.maxBytes = size
        }
        if let age = arguments.value("max-age") {
            guard let duration = Units.duration(age) else { throw CommandUsageError("--max-age \(quoted(age)): \(Units.durationProblem(age)).") }
            policy.maxAge = duration
        }
        if let kind {
            configured.byKind[kind] = policy
            policy = configured
        }
        let expired = try store.deleteExpired()
        let dropped = try store.applyRetention(policy)
        let orphaned = try store.collectOrphanedFiles()
        if orphaned > 0 { context.stdout.line("Removed \(ByteCountFormatting.string(orphaned)) of unreferenced payload files.") }
        if arguments.flag("vacuum") {
            // Texts written before items kept them in their own rows (schema 14).
            let moved = try store.moveTextsIntoItemRows()
            if moved > 0 {
                context.stdout.line("Moved the texts of \(moved) item\(moved == 1 ? "" : "s") into their own rows.")
            }
            // Payloads written before the store packed them (schema 11), or before it had learned its dictionary.
            let repacked = try store.packStoredPayloads()
            if repacked.packed > 0 {
                context.stdout.line(
                    "Packed \(repacked.packed) payload\(repacked.packed == 1 ? "" : "s") stored unpacked: "
                        + "\(ByteCountFormatting.string(repacked.bytesBefore)) → \(ByteCountFormatting.string(repacked.bytesAfter)).")
            }
            try store.vacuum()
        } else {
            // What the deleted items' rows and index entries took goes back to the file system, in a store made
            // with incremental auto-vacuum (HistoryStore+FreePages.swift), when it is worth it.
            try store.returnFreePages()
        }
        context.stdout.line("Deleted \(dropped + expired) item\(dropped + expired == 1 ? "" : "s").")
    }
}
