import ArgumentParsing
import DisplayBackends
import FoundationEssentials
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PasteboardSystem
#if canImport(Glibc)
import Glibc
import TextSupport
#endif

/// `pb __serve ID`: the short-lived selection owner started by `pb copy` when no daemon runs. Not listed.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "__serve", abstract: "Own the clipboard with a history item until another application copies (internal).",
        options: [
            .init("once", help: "Serve one paste."), .init("expire", value: "SECONDS", help: "Give up after SECONDS."),
            .init("type", value: "TYPE", help: "With ID '-': the type of the data on standard input."),
            .init("plain", help: "Serve the item's plain text alone."),
        ],
        positionals: [.init("ID", help: "History item id, or '-' for data on standard input (not in the history).")])

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let clipboard = try context.clipboard()
        var item: PasteboardItem
        if arguments.positionals[0] == "-" {
            guard let type = try resolveType(arguments.value("type")) else {
                throw CommandUsageError("__serve - needs --type.")
            }
            item = PasteboardItem(data: context.readInput(), type: type)
        } else {
            // Its payload files are read (and checked against their hashes) when a reader asks, not now.
            item = try context.store().restorableItem(id: try ItemIDs.parse(arguments.positionals[0]))
        }
        if arguments.flag("plain") {
            guard let text = item.plainTextOnly else { throw CommandFailure("The item has no text to serve as plain text.") }
            item = text
        }
        var expiry: Date?
        if let text = arguments.value("expire") {
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw CommandUsageError("--expire needs a number of seconds, not \(quoted(text)).")
            }
            expiry = Date().addingTimeInterval(seconds)
        }
        do {
            try clipboard.serve(item, once: arguments.flag("once"), until: expiry) {
                context.stdout.line("ready")
                context.stdout.flush()
                // Let go of the parent's pipe so `x=$(pb copy …)` returns at once.
                let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
                if null >= 0 {
                    dup2(null, 1)
                    close(null)
                }
            }
        } catch {
            throw error.failure
        }
        if expiry != nil { try context.store().deleteExpired() }
    }
}

enum TakeCommand: Command {
    static let spec = CommandSpec(
        name: "take", abstract: "Print the clipboard and clear it in one step (consume a copied link once).",
        options: [.init("url", help: "Only a URL: fail, leaving the clipboard alone, when it holds none.")],
        discussion: "EXAMPLE:\n  link=$(pb take --url) && save-link \"$link\"")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let item = try PasteCommand.currentItem(wanted: nil, context: context)
        guard let text = item.string else { throw CommandFailure("The clipboard holds no text.") }
        let trimmed = text.trimmingWhitespaceAndNewlines()
        if arguments.flag("url") {
            guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
                ["http", "https", "ftp", "file", "mailto"].contains(scheme), !trimmed.contains(" ")
            else { throw CommandFailure("The clipboard holds no URL; it was left as it was.") }
        }
        do {
            try context.clipboard().clear(store: context.store())
        } catch let error as ClipboardError {
            throw error.failure
        }
        context.stdout.write(arguments.flag("url") ? trimmed + "\n" : text)
        context.announce(ControlEvent(.taken))
    }
}

enum WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch", abstract: "Stream history events (captured, imported, arrived, deleted, …) as JSON lines.",
        options: [
            .init(
                "since", value: "SEQ",
                help: "First replay the history's changes after SEQ (a 'seq' an earlier event carried)."),
        ],
        discussion: "Needs a running 'pb daemon'. Runs until Ctrl-C; when the daemon stops, says so and exits 1.\n"
            + "Every change of the history is an event with a 'seq', whoever made it: 'captured' (a copy, pb copy\n"
            + "included), 'restored', 'pinned', 'unpinned', 'deleted', 'cleared', 'imported' (pb import: 'count',\n"
            + "ids 'id' to 'lastID'), 'expired', 'pruned' (retention), 'arrived' (from another device through\n"
            + "sync: 'device'), 'moved', 'changed'. With --since, a 'reload' event says the changes after SEQ\n"
            + "are no longer kept (the newest 10,000 are).\n\n"
            + "EXAMPLES:\n  pb watch | jq -c 'select(.event == \"captured\")'\n  pb watch --since 1200")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        var since: Int64?
        if let text = arguments.value("since") {
            guard let number = Int64(text), number >= 0 else {
                throw UsageError("--since needs a change number ('seq' of an event, 0 or more), not \(quoted(text)).")
            }
            since = number
        }
        do {
            try context.daemon.watch(since: since) { line in
                context.stdout.write(line + [0x0A])
                context.stdout.flush()
                return true
            }
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
        throw CommandFailure("The daemon stopped; no more events.")
    }
}
