import ArgumentParsing
import DisplayBackends
import DisplayPaste
import FoundationEssentials
import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PasteboardSync
import PasteboardSystem
import TextSupport
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Resolves a `--type` argument.
func resolveType(_ text: String?) throws -> ContentType? {
    guard let text else { return nil }
    guard let type = ContentType.resolve(text) else {
        throw CommandUsageError(
            "Unknown content type \(quoted(text)). Give an identifier (public.png), a MIME type (image/png) or an extension (png).")
    }
    return type
}

/// Reads a FILE argument (at most `limit` bytes of it), or standard input for none or `-`.
func readInput(_ path: String?, context: Context, limit: Int? = nil) throws -> Data {
    guard let path, path != "-" else { return context.readInput() }
    var isDirectory = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw CommandFailure("Cannot read \(path): no such file.")
    }
    if isDirectory { throw CommandFailure("Cannot copy \(path): it is a directory.") }
    let file: ReadableFile
    do throws(SystemError) {
        file = try ReadableFile(path: path)
    } catch {
        throw CommandFailure("Cannot read \(path): permission denied or unreadable.")
    }
    do throws(SystemError) {
        if let limit { return try file.read(upToCount: limit) }
        return try file.readToEnd()
    } catch {
        throw CommandFailure("Cannot read \(path): \(error.reason)", cause: error)
    }
}

enum CopyCommand: Command {
    static let spec = CommandSpec(
        name: "copy", abstract: "Copy a file, standard input or a download (--url) to the clipboard and the history.",
        options: [
            .init("type", short: "t", value: "TYPE", help: "Content type: identifier, MIME type or extension (default: sniffed)."),
            .init("expire", value: "DURATION", help: "Clear it from the clipboard and the history after DURATION (30s, 5m, 2h, 7d)."),
            .init("once", help: "Serve it to the first paste only, then clear the clipboard (X11, Wayland)."),
            .init("only", help: "Offer only the given type: no plain-text form of HTML or RTF beside it."),
            .init("ask", help: "Ask before each paste: the app shows Allow / Don't Allow (X11, needs the daemon)."),
            .init("local", help: "Keep it on this device: never sync it to your other devices (see pb sync)."),
            .init("pasteboard", short: "p", value: "NAME", help: "Write a named pasteboard kept in the store (find, or any name) instead."),
            .init("url", value: "URL", help: "Download URL (http or https) and copy it: an image, a web page's text with its HTML, or text."),
            .init("timeout", value: "DURATION", help: "With --url: give up after DURATION (default 5m; 15s without data always ends it)."),
        ],
        positionals: [.init("FILE", help: "File to copy; '-' or nothing reads standard input.", optional: true)],
        discussion: "HTML and RTF are offered with their plain text beside them, unless --only is given.\n\n"
            + "--url takes 50 MB at most (after decompression), follows up to 10 redirects to http or https addresses, "
            + "and reaches loopback, private and link-local addresses only when URL names one itself (then only that "
            + "address and port).\n\n"
            + "EXAMPLES:\n  echo hello | pb copy\n  pb copy photo.png\n  pb copy --type html page.html\n"
            + "  pb copy --url https://example.com/picture.png")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let explicitType = try resolveType(arguments.value("type"))
        var expiresAt: Date?
        var duration: TimeInterval?
        if let text = arguments.value("expire") {
            guard let seconds = Units.duration(text) else {
                throw CommandUsageError("--expire \(quoted(text)): \(Units.durationProblem(text)).")
            }
            duration = seconds
            expiresAt = Date().addingTimeInterval(seconds)
        }
        var timeout: Double?
        if let text = arguments.value("timeout") {
            guard arguments.value("url") != nil else { throw CommandUsageError("--timeout applies to --url only.") }
            guard let seconds = Units.duration(text), seconds > 0 else {
                throw CommandUsageError("--timeout \(quoted(text)): \(Units.durationProblem(text)).")
            }
            timeout = seconds
        }
        if arguments.value("url") != nil {
            if arguments.positionals.first != nil { throw CommandUsageError("Give either --url or FILE, not both.") }
            if explicitType != nil { throw CommandUsageError("--type does not apply to --url: the download's type decides.") }
        }
        let clipboard = try context.clipboard()
        let path = arguments.positionals.first
        // A file is kept as a file (hashed and copied in chunks), so huge files never sit in memory;
        // its first 64 KiB decide its type.
        var fileRepresentationURL: URL?
        let data: Data
        var downloaded: PasteboardItem?
        if let url = arguments.value("url") {
            let (item, summary) = try CopyFromURL.item(url, timeout: timeout, context: context)
            downloaded = item
            data = item.types.first.flatMap { item.data(forType: $0) } ?? Data()
            if context.stderrIsTerminal { context.stderr.line("Downloaded \(summary).") }
        } else if let path, path != "-" {
            let url = URL(fileURLWithPath: path)
            let probe = try readInput(path, context: context, limit: 64 * 1024)
            data = probe
            if ((try? FileManager.default.attributesOfItem(atPath: path))?.fileSize ?? 0) > probe.count {
                fileRepresentationURL = url
            }
        } else {
            data = try readInput(path, context: context)
        }
        if data.isEmpty {
            throw CommandFailure("Nothing to copy: the input is empty. The clipboard was left as it was.")
        }
        let type: ContentType
        if let downloaded, let first = downloaded.types.first {
            type = first
        } else if let explicitType {
            if explicitType.isText && !InputClassifier.isMostlyText(data) {
                let sniffed = ContentType.sniff(data)
                let what = sniffed == .data ? "binary data" : sniffed.localizedDescription
                throw CommandFailure(
                    "The input is \(what), not text: refusing --type \(arguments.value("type")!). "
                        + "Drop --type to copy it as \(what), or give a binary type.")
            }
            type = explicitType
        } else {
            type = InputClassifier.type(of: data, fileName: path == "-" ? nil : path)
        }
        var item = downloaded ?? PasteboardItem(data: data, type: type)
        if let fileRepresentationURL { try item.setFile(fileRepresentationURL, forType: type) }
        // HTML or RTF alone cannot be pasted into a plain-text field or an address bar: offer its text too.
        if downloaded == nil, !arguments.flag("only"), !type.conforms(to: .plainText) {
            let rich = fileRepresentationURL == nil ? data : try readInput(path, context: context, limit: PlainTextForm.maxInputBytes)
            if let plain = PlainTextForm.text(of: rich, as: type), !plain.isEmpty {
                item.setData(Data(plain.utf8), forType: .utf8PlainText)
            }
        }
        let store = try context.store()
        if let name = arguments.value("pasteboard"), name != PasteboardName.general.rawValue {
            try store.writePasteboard([item], to: try PasteCommand.validated(name))
            return
        }
        var metadata = CaptureMetadata(source: "pb", selection: "clipboard", expiresAt: expiresAt)
        let ruleAsks = try context.configuration().pasteApproval.asks(item, application: "pb")
        metadata.asksBeforePaste = arguments.flag("ask") || ruleAsks
        if metadata.asksBeforePaste && clipboard.kind.hasDisplay && !clipboard.daemon.isRunning {
            // Only the daemon holds a paste while the app asks: a short-lived owner would serve everyone.
            throw CommandFailure(
                "This copy asks before pasting (\(arguments.flag("ask") ? "--ask" : "an ask-app or ask-type rule")), "
                    + "and only the daemon can hold a paste: start 'pb daemon' (and pasteboard-gtk to answer). "
                    + "Nothing was copied.")
        }
        let once = arguments.flag("once")
        if once || expiresAt != nil || arguments.flag("local") {
            // Marked before it is recorded, so a syncing daemon never sends it (see docs/sync.md).
            do {
                try SyncSession.markLocalOnly(item, location: context.location)
            } catch {
                throw CommandFailure("Not copied: it could not be marked local-only (\(error.message)).", cause: error)
            }
        }
        if let reason = try context.configuration().capture.rejection(of: item, application: nil) {
            // The user's rules keep it out of the history; it still goes on the clipboard, as asked.
            var serve = ["__serve", "-", "--type", type.identifier]
            if once { serve.append("--once") }
            if let duration { serve += ["--expire", String(duration)] }
            let whole = fileRepresentationURL == nil ? data : try readInput(path, context: context)
            do {
                try clipboard.copyUnrecorded(
                    item, store: store, executable: "/proc/self/exe", arguments: serve, input: whole)
            } catch {
                throw error.failure
            }
            context.stderr.line("Copied, but not recorded in the history: \(reason) (see the configuration file).")
            return
        }
        let id: Int64
        do {
            id = try clipboard.copy(
                item, metadata: metadata, once: once, expire: duration, store: store,
                fallback: context.ownerFallback(once: once, expire: duration))
        } catch {
            throw error.failure
        }
        if metadata.asksBeforePaste { AllowPasteNotice.afterCopy(id: id, clipboard: clipboard, stderr: context.stderr) }
        if expiresAt != nil {
            // Tell a running daemon to re-arm its expiry timer; without one, expiry happens at its next start.
            do {
                try clipboard.daemon.perform(.reschedule, timeout: 1)
            } catch where error.code == .notRunning {
            } catch {
                context.stderr.line("Warning: the daemon was not told of the expiry (\(error.message)); it applies at its next start.")
            }
        }
    }
}

enum PasteCommand: Command {
    static let spec = CommandSpec(
        name: "paste", abstract: "Write the clipboard's contents to standard output.",
        options: [
            .init("type", short: "t", value: "TYPE", help: "Write this representation (identifier, MIME type or extension)."),
            .init("list-types", short: "l", help: "List the clipboard's representations instead."),
            .init("pasteboard", short: "p", value: "NAME", help: "Read a named pasteboard kept in the store (find, or any name)."),
        ],
        discussion: "EXAMPLES:\n  pb paste\n  pb paste --type png > shot.png\n  pb paste --list-types")

    /// The text `pb show` prints: plain text first, then any text.
    static let textPreference: [ContentType] = [.utf8PlainText, .plainText, .text]

    /// What `pb paste` and `pb decode` write without `--type`: plain text first, then a picture (Chromium's
    /// "Copy image" also offers HTML that only wraps it), then any text, then whatever comes first.
    static let pastePreference: [ContentType] = [.utf8PlainText, .plainText, .image, .text]

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let wanted = try resolveType(arguments.value("type"))
        let item: PasteboardItem
        if let name = arguments.value("pasteboard"), name != PasteboardName.general.rawValue {
            let contents = try context.store().pasteboardContents(try validated(name))
            guard let first = contents.items.first, !first.isEmpty else { throw CommandFailure("The pasteboard \(quoted(name)) is empty.") }
            item = first
        } else {
            item = try currentItem(wanted: wanted, listOnly: arguments.flag("list-types"), context: context)
        }
        if arguments.flag("list-types") {
            let headless = !(try context.backendKind.hasDisplay)
            for representation in item.representations {
                let mime = representation.type.preferredMIMEType ?? "-"
                context.stdout.line("\(representation.type.identifier)\t\(mime)" + (headless ? "\t\(representation.data.count)" : ""))
            }
            return
        }
        try writeBest(of: item, wanted: wanted, context: context, what: "The clipboard")
    }

    /// A pasteboard name as given on the command line.
    static func validated(_ name: String) throws -> String {
        guard !name.isEmpty, name.count <= 200, !name.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw CommandUsageError("\(quoted(name)) is not a pasteboard name.")
        }
        return name
    }

    /// The clipboard's first item: read from the display, or from the store without one. With `wanted`, only
    /// matching representations are read; with `listOnly`, none (only which types are offered, empty).
    static func currentItem(wanted: ContentType?, listOnly: Bool = false, context: Context) throws -> PasteboardItem {
        let clipboard = try context.clipboard()
        let store = try context.store()
        do {
            guard listOnly else { return try clipboard.read(wanted: wanted, store: store) }
            if !clipboard.kind.hasDisplay { return try clipboard.read(wanted: nil, store: store) }
            var item = PasteboardItem()
            for (_, type) in try clipboard.offeredTypes(store: store) {
                if let type, !item.types.contains(type) { item.setData(Data(), forType: type) }
            }
            if item.isEmpty { throw ClipboardError("The clipboard is empty.") }
            return item
        } catch let error as ClipboardError {
            throw error.failure
        }
    }

    /// Writes the representation a reader asked for (or text, or the first one) to standard output.
    static func writeBest(of item: PasteboardItem, wanted: ContentType?, context: Context, what: String) throws {
        let type: ContentType
        if let wanted {
            // A representation kept verbatim answers to what its name means (`--type 'text/plain;charset=utf-16'`).
            let verbatim = item.types.first { $0.canonicalType.conforms(to: wanted) }
            guard let match = item.bestType(among: [wanted]) ?? verbatim else {
                let held = item.types.map(\.identifier).joined(separator: ", ")
                throw CommandFailure("\(what) holds no \(wanted.identifier) (it holds: \(held)).")
            }
            type = match
        } else {
            type = item.bestType(among: pastePreference) ?? item.types[0]
        }
        guard let representation = item.representations.first(where: { $0.type == type }) else { return }
        let head = representation.prefix(64 * 1024)
        if wanted == nil && context.stdinIsTerminal && isatty(1) == 1 && !type.isText && !InputClassifier.isMostlyText(head) {
            throw CommandFailure(
                "\(what) holds \(type.localizedDescription) (\(ByteCountFormatting.string(representation.byteCount))); "
                    + "redirect it to a file, e.g. 'pb paste > file.\(type.preferredFilenameExtension ?? "bin")'.")
        }
        guard let url = representation.fileURL else {
            context.stdout.write(representation.data)
            return
        }
        let file: ReadableFile
        do throws(SystemError) {
            file = try ReadableFile(path: url.path)
        } catch {
            throw CommandFailure("\(what)'s \(type.identifier) payload is missing or unreadable (\(url.path)); run 'pb doctor'.")
        }
        // A file-backed payload streams out in chunks.
        while true {
            let chunk: Data
            do throws(SystemError) {
                chunk = try file.read(upToCount: 1 << 20)
            } catch {
                throw CommandFailure("Reading \(url.path) failed: \(error.reason)", cause: error)
            }
            if chunk.isEmpty { break }
            context.stdout.write(chunk)
            context.stdout.flush()
        }
    }
}

enum RestoreCommand: Command {
    static let spec = CommandSpec(
        name: "restore", abstract: "Put a past item back on the clipboard with all its representations.",
        options: [
            .init("paste", help: "Then paste it into the window that has the keyboard focus."),
            PasteOptions.key,
            .init("plain", help: "Put its plain text alone on the clipboard (paste as plain text)."),
            .init("joined", value: "SEP", help: "Several items: their texts joined with SEP (\\n, \\t allowed) as one new copy."),
            .init("stack", help: "Several items: one per paste, in the order given (a paste stack; needs the daemon)."),
        ],
        positionals: [.init("ID", help: "The item's id, as 'pb history' shows.", repeating: true)],
        discussion: """
            With --paste, the paste keystroke is typed into the window that has the keyboard focus once the item
            is on the clipboard: through XTest on X11, a virtual keyboard on sway and other wlroots compositors,
            KWin's fake input on KDE Plasma (granted by pb's .desktop file, which 'make install' installs). Bind
            it to a hotkey; run from a terminal, the terminal itself gets the paste. Where no keystroke can be
            typed, pb says why, leaves the clipboard as it was and exits with status 1.

            With --plain, only the item's text goes on the clipboard (no HTML, no picture): pasting into a
            document then takes the document's formatting. No item is added; the item moves to the top as with
            any restore. An item without text is refused.

            With several ids and --joined SEP, their texts, in the order given, joined with SEP (a '\\n' or '\\t'
            in it is a line break or a tab), become one new copy: the clipboard and a new history item, as 'pb
            copy' makes (a paste stack in one paste). An item without text is refused, and nothing is copied.

            With several ids and --stack, the items go on the clipboard one after another, each with all its
            representations, for one paste each: paste, and the next is there for the next paste; the last one
            stays. The daemon counts the pastes, so it must be running on a display. A copy in another
            application, another restore or 'pb clear' ends the stack ('pb watch' shows each step).

            EXAMPLES:
              pb restore 42 && pb paste
              pb restore 42 --paste --paste-key shift+insert
              pb restore 42 --plain --paste
              pb restore 42 43 44 --joined '\\n' --paste
              pb restore 42 43 44 --stack
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let ids = ItemIDs.unique(try arguments.positionals.map(ItemIDs.parse))
        let separator = arguments.value("joined").map(HistoryStore.unescapedSeparator)
        if arguments.flag("stack") {
            if separator != nil { throw CommandUsageError("Choose --stack (one item per paste) or --joined (one paste).") }
            if arguments.flag("plain") { throw CommandUsageError("--stack serves each item whole: leave out --plain.") }
            if arguments.flag("paste") {
                throw CommandUsageError("--stack goes on at each paste you make: leave out --paste and paste yourself.")
            }
            let store = try context.store()
            for id in ids { _ = try store.item(id: id) }  // an unknown id is said before anything changes
            let clipboard = try context.clipboard()
            do {
                try clipboard.stack(ids: ids)
            } catch {
                throw error.failure
            }
            let count = ids.count
            context.stderr.line(
                "Item \(ids[0]) is on the clipboard; \(count - 1) more follow\(count == 2 ? "s" : ""), one per paste.")
            return
        }
        if ids.count > 1 && separator == nil {
            throw CommandUsageError(
                "Several items go back together with --joined SEP (one paste, e.g. --joined '\\n') or --stack "
                    + "(one item per paste).")
        }
        if separator != nil && arguments.flag("plain") { throw CommandUsageError("--joined copies text already: leave out --plain.") }
        let id = ids[0]
        let pastes = arguments.flag("paste")
        let keystroke = try PasteOptions.keystroke(arguments)
        if !pastes && arguments.value("paste-key") != nil { throw CommandUsageError("--paste-key goes with --paste.") }
        // Whether the keystroke can be typed at all is known before anything changes: a refused --paste leaves
        // the clipboard and the history as they were.
        var target: (any PasteTarget)?
        if pastes {
            do {
                target = try PasteTargets.focused(environment: context.environment)
            } catch {
                throw CommandFailure("\(error.message) Item \(id) was not restored.", cause: error)
            }
        }
        let store = try context.store()
        let clipboard = try context.clipboard()
        if let separator {
            // Texts joined: a new text, so a copy (as pb pick makes of several marked items).
            let joined = try store.joinedText(of: ids, separator: separator)
            do {
                try clipboard.copy(
                    joined, metadata: CaptureMetadata(source: "pb", selection: "clipboard"), store: store,
                    fallback: context.ownerFallback(once: false, expire: nil))
            } catch {
                throw error.failure
            }
        } else {
            do {
                // A move to the top, not a new copy: no payload is read here (the daemon reads them when pasted).
                let plain = arguments.flag("plain")
                try clipboard.restore(
                    id: id, store: store, plain: plain,
                    fallback: context.ownerFallback(once: false, expire: nil, plain: plain))
            } catch {
                throw error.failure
            }
        }
        guard let target else { return }
        // The restore returns once the clipboard's new owner (the daemon, else pb's own owner process) holds the
        // selection: on X11 its ownership is confirmed by a round trip to the server, on Wayland its set_selection
        // has been sent, before the keyboard's first request, so the focused application hears of the new
        // clipboard before the keystroke. The keys go to the window focused now, as `pb pick --paste` types them
        // on X11 (the picker's deferred paste is for its own terminal's focus, which is not in play here).
        do {
            try target.paste(keystroke)
        } catch {
            throw CommandFailure("Item \(id) is on the clipboard, but it was not pasted: \(error.message)", cause: error)
        }
    }

}

enum DecodeCommand: Command {
    static let spec = CommandSpec(
        name: "decode", abstract: "Write the item named by a 'pb history --format dmenu' line (for pickers).",
        options: [.init("type", short: "t", value: "TYPE", help: "Write this representation instead of the best one.")],
        positionals: [.init("LINE", help: "The picked line; read from standard input when absent.", optional: true)],
        discussion: "EXAMPLES:\n  pb history --format dmenu | fzf | pb decode | pb copy\n  pb history --format dmenu | rofi -dmenu | pb decode | pb copy")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let wanted = try resolveType(arguments.value("type"))
        let line: String
        if let given = arguments.positionals.first {
            line = given
        } else {
            let input = context.readInput()
            line = String(decoding: input.prefix(while: { $0 != 0x0A }), as: UTF8.self)
        }
        let field = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if field.trimmingWhitespace().isEmpty {
            throw CommandFailure("Nothing to decode: expected a line from 'pb history --format dmenu' (ID<TAB>preview).")
        }
        let id = try ItemIDs.parse(field)
        let item = try context.store().pasteboardItem(id: id)
        try PasteCommand.writeBest(of: item, wanted: wanted, context: context, what: "Item \(id)")
    }
}
