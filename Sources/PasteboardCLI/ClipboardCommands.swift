import ArgumentParsing
import Foundation
import PasteboardDaemon
import PasteboardHistory
import PasteboardModel
import X11Backend
#if canImport(Glibc)
import Glibc
#endif

/// `pb __serve ID`: the short-lived selection owner started by `pb copy` when no daemon runs. Not listed.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "__serve", abstract: "Own the clipboard with a history item until another application copies (internal).",
        options: [.init("once", help: "Serve one paste."), .init("expire", value: "SECONDS", help: "Give up after SECONDS.")],
        positionals: [.init("ID", help: "History item id.")])

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let id = try ItemIDs.parse(arguments.positionals[0])
        guard case .x11(let display) = try context.backend else { throw CommandFailure("No X display.") }
        let item = try context.store().pasteboardItem(id: id)
        let clipboard = try context.x11Clipboard(display)
        let expiry = arguments.value("expire").flatMap(Double.init).map { Date().addingTimeInterval($0) }
        guard clipboard.own(.clipboard, item: item, once: arguments.flag("once")) else {
            throw CommandFailure("another client holds the clipboard")
        }
        context.stdout.line("ready")
        context.stdout.flush()
        // Let go of the parent's pipe so `x=$(pb copy …)` returns at once.
        let null = open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, 1)
            close(null)
        }
        clipboard.run(until: { !clipboard.owns(.clipboard) }, deadline: expiry)
        if clipboard.owns(.clipboard) { clipboard.disown(.clipboard) }
        if expiry != nil, let store = try? context.store() { try store.deleteExpired() }
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
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if arguments.flag("url") {
            guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
                ["http", "https", "ftp", "file", "mailto"].contains(scheme), !trimmed.contains(" ")
            else { throw CommandFailure("The clipboard holds no URL; it was left as it was.") }
        }
        switch try context.backend {
        case .x11(let display):
            if context.daemon.request(["command": "clear"], timeout: 2)?["ok"] as? Bool != true {
                let clipboard = try context.x11Clipboard(display)
                clipboard.clearSelection(.clipboard)
            }
        case .headless:
            try context.store().writePasteboard([], to: PasteboardName.general.rawValue)
        }
        context.stdout.write(arguments.flag("url") ? trimmed + "\n" : text)
        context.notifyDaemon(["event": "taken"])
    }
}

enum WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch", abstract: "Stream history events (captured, restored, deleted, pinned, cleared) as JSON lines.",
        discussion: "Needs a running 'pb daemon'. Stops at end of input or Ctrl-C.\n\nEXAMPLE:\n  pb watch | jq -c 'select(.event == \"captured\")'")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let runtime = context.runtime
        guard let fd = context.daemon.connect() else {
            throw CommandFailure("No daemon is running (socket \(runtime.socketPath)); start one with 'pb daemon'.")
        }
        defer { close(fd) }
        let request = Array("{\"command\":\"watch\"}\n".utf8)
        _ = send(fd, request, request.count, Int32(MSG_NOSIGNAL))
        var buffer = [UInt8](repeating: 0, count: 65536)
        var first = true
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            var chunk = Data(buffer[0..<count])
            if first, let newline = chunk.firstIndex(of: 0x0A) {
                chunk = chunk[(newline + 1)...]  // the daemon's acknowledgement
                first = false
            }
            context.stdout.write(chunk)
            context.stdout.flush()
        }
    }
}
