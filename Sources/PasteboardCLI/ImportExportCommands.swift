import ArgumentParsing
import FoundationEssentials
import HistoryImporters
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import TextSupport

enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import", abstract: "Add items from a JSON Lines file (as written by 'pb export'), or another manager's history.",
        options: [
            .init(
                "from", value: "NAME",
                help: "Read the history of another clipboard manager: copyq, klipper, gpaste, maccy, "
                    + "clipboard-indicator or cliphist (FILE: where it is, when not in its usual place).")
        ],
        positionals: [.init("FILE", help: "The file; '-' reads standard input.", optional: true)],
        discussion: """
            All or nothing: a bad line stops the import with its line number and leaves the history unchanged.
            Besides 'pb export' lines, {"text":"…"} lines are accepted, to migrate from other managers. Dates are
            ISO 8601 (2024-01-01, 2024-01-01T12:00:00Z, with or without fractional seconds and an offset; UTC
            without one) or seconds since 1970, in the years 1 to 9999. The configuration's ignore-text,
            ignore-type and max-item-size rules apply: lines they reject are skipped and counted. On a terminal, a
            long import shows its progress on standard error. Items keep their dates and take their places by
            them: the history stays newest first by last copy.

            The items are searchable as soon as the result is printed; their search index is built afterwards (pb
            import goes on indexing, in steps that each keep what they did, so it can be interrupted; the daemon or
            the next import finishes the rest).

            With --from, every format of every item comes over, with the times, pins and order the manager kept
            (those that keep no times, all but Maccy, keep their order: the newest item takes the file's
            modification time). Usual places: CopyQ's tabs (copyq_tab_*.dat) in ~/.config/copyq, or a .cpq export
            as FILE; Klipper's ~/.local/share/klipper/history2.lst; GPaste's ~/.local/share/gpaste/history.xml;
            Maccy's Storage.sqlite, copied from the Mac; clipboard-indicator's
            ~/.cache/clipboard-indicator@tudmotu.com/registry.txt; cliphist through 'cliphist list' and 'cliphist
            decode' (FILE: its database). A damaged or truncated file stops the import, naming the byte and item
            where reading stopped, and nothing is imported.

            EXAMPLES:
              pb export > backup.jsonl && pb import backup.jsonl
              pb import --from copyq
              pb import --from maccy ~/Storage.sqlite
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        if let name = arguments.value("from") {
            return try importHistory(from: name, path: arguments.positionals.first, in: context)
        }
        guard let path = arguments.positionals.first else {
            throw CommandUsageError("Missing FILE (or --from NAME).")
        }
        let name = path == "-" ? "standard input" : path
        let reader: LineReader
        do {
            reader = path == "-" ? LineReader(descriptor: context.standardInputDescriptor, name: name) : try LineReader(path: path)
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
        let session = try ImportSession(context: context)
        defer { session.abandon() }
        var decoder = ItemLine.Decoder()
        var lineNumber = 0
        let now = Date()
        func failure(_ message: String) -> CommandFailure {
            CommandFailure("\(name):\(lineNumber): \(message). Nothing was imported.")
        }
        while true {
            let next: UnsafeMutableRawBufferPointer?
            do {
                next = try reader.nextLine()
            } catch {
                throw CommandFailure("\(error.message) Nothing was imported.", cause: error)
            }
            guard var line = next else { break }
            lineNumber += 1
            if lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) {  // a byte order mark some editors write
                line = UnsafeMutableRawBufferPointer(rebasing: line[3...])
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let decoded: ItemLine.Decoded
            do {
                decoded = try decoder.decode(line, now: now, copying: false)
            } catch {
                throw failure(error.message)
            }
            do {
                try session.add(decoded.item, metadata: decoded.metadata, mergingRepeats: true)
            } catch {
                // A date the store refuses is the line's fault; anything else (a full disk) is not.
                guard error.code == .invalidInput else { throw error }
                throw failure(error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message)
            }
            session.progress.update(
                count: lineNumber, fraction: reader.totalBytes.map { Double(reader.bytesRead) / Double(max($0, 1)) })
        }
        try session.commit()
        var notes: [String] = []
        if session.merged > 0 { notes.append("\(session.merged) merged") }
        notes += session.ruleNotes
        let summary = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
        try session.report("Imported \(session.added) item\(session.added == 1 ? "" : "s")\(summary) from \(name).")
    }

    /// `pb import --from NAME [PATH]`: another manager's history, read whole first, then recorded as one
    /// transaction.
    static func importHistory(from name: String, path: String?, in context: Context) throws {
        guard let source = ImportSource(rawValue: name) else {
            let names = ImportSource.allCases.map(\.rawValue)
            var message = "--from does not know \(quoted(name)); it reads \(names.joined(separator: ", "))."
            if let near = Suggestion.nearest(to: name, among: names) { message += " Did you mean '\(near)'?" }
            throw CommandUsageError(message)
        }
        let history: ImportedHistory
        do {
            history = try source.read(path: path, environment: context.environment)
        } catch {
            throw CommandFailure("\(error.message) Nothing was imported.", cause: error)
        }
        let session = try ImportSession(context: context)
        defer { session.abandon() }
        var formats = 0
        let now = Date()
        // Oldest first, as a copy would have come: of two items with the same date, the later one stays on top.
        for (index, imported) in history.items.reversed().enumerated() {
            let metadata = CaptureMetadata(
                source: imported.source, date: min(imported.date ?? now, now), created: imported.created,
                copyCount: imported.copyCount, isPinned: imported.isPinned)
            do {
                if try session.add(imported.item, metadata: metadata, mergingRepeats: false) == true {
                    formats += imported.item.representations.count
                }
            } catch {
                guard error.code == .invalidInput else { throw error }
                throw CommandFailure(
                    "Item \(history.items.count - index) of \(history.files.joined(separator: ", ")): \(error.message) "
                        + "Nothing was imported.")
            }
            session.progress.update(
                count: index + 1, fraction: Double(index + 1) / Double(max(history.items.count, 1)))
        }
        try session.commit()
        var notes: [String] = ["\(formats) format\(formats == 1 ? "" : "s")"]
        if session.merged > 0 { notes.append("\(session.merged) already in the history") }
        for (reason, count) in history.skipped.sorted(by: { $0.key < $1.key }) {
            notes.append("\(count) skipped: \(reason)")
        }
        notes += session.ruleNotes
        let files = history.files.count == 1 ? history.files[0] : "\(history.files.count) files"
        try session.report(
            "Imported \(session.added) item\(session.added == 1 ? "" : "s") (\(notes.joined(separator: ", "))) from "
                + "\(source.rawValue) (\(files)).")
    }

    /// Builds the search index of what the import (or an earlier one that was interrupted) brought, a slice per
    /// transaction, with its progress on a terminal.
    static func indexBacklog(of store: HistoryStore, in context: Context) throws {
        let total = context.stderrIsTerminal ? try store.unindexedCount() : 0
        let progress = ProgressLine(verb: "Indexing", context: context)
        defer { progress.finish() }
        var indexed = 0
        while true {
            let slice = try store.indexBacklog(limit: HistoryStore.bulkSliceItems, bytes: HistoryStore.bulkSliceBytes)
            if slice == 0 { break }
            indexed += slice
            progress.update(count: indexed, fraction: total > 0 ? min(1, Double(indexed) / Double(total)) : nil, isSampled: false)
        }
    }
}

enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", abstract: "Write the whole history as JSON Lines, oldest first.",
        options: [.init("type", short: "t", value: "TYPE", help: "Only items with a representation of TYPE.")],
        discussion: """
            An item whose stored payload is missing or damaged is left out and named on standard error; every other
            item is still written, and the exit status is 1. On a terminal, a long export shows its progress on
            standard error.

            EXAMPLE:
              pb export > backup.jsonl
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let store = try context.store()
        let type = try resolveType(arguments.value("type"))
        let progress = ProgressLine(verb: "Exporting", context: context)
        defer { progress.finish() }
        let total = context.stderrIsTerminal ? try store.count(type: type) : 0
        var line: [UInt8] = []
        line.reserveCapacity(1 << 16)
        var written = 0
        var damaged: [Int64] = []
        try store.exportItems(type: type) { result in
            switch result {
            case .failure(let damage):
                progress.finish()
                context.stderr.line("Error: item \(damage.id) left out of the export: \(damage.error.message)")
                context.stderr.flush()
                damaged.append(damage.id)
            case .success(let item):
                line.removeAll(keepingCapacity: true)
                ItemLine.append(
                    created: item.created, lastCopied: item.lastCopied, copyCount: item.copyCount,
                    isPinned: item.isPinned, source: item.source, expiresAt: item.expiresAt,
                    representations: item.representations.map { ItemLine.Payload(type: $0.type.identifier, bytes: $0.bytes) },
                    to: &line)
                line.append(0x0A)
                line.withUnsafeBytes { context.stdout.write($0) }
                written += 1
                if written == 1 { context.stdout.flush() }  // a reader sees the first line at once
                progress.update(count: written, fraction: total > 0 ? Double(written) / Double(total) : nil)
            }
        }
        context.stdout.flush()
        if !damaged.isEmpty {
            let ids = damaged.prefix(20).map(String.init).joined(separator: ", ") + (damaged.count > 20 ? ", …" : "")
            throw CommandFailure(
                "\(damaged.count) damaged item\(damaged.count == 1 ? " was" : "s were") left out of the export "
                    + "(\(ids)); the other \(written) were written. 'pb show ID' tells what each holds.")
        }
    }
}

/// One `pb import`, whatever it reads: the capture rules applied to each item, one all-or-nothing transaction with
/// its progress line, the counts, then retention, the result line and the search index.
private final class ImportSession {
    let context: Context
    let rules: CaptureRules
    let store: HistoryStore
    let progress: ProgressLine
    let bulk: HistoryImport
    private(set) var added = 0
    private(set) var merged = 0
    private var skipped: [CaptureRules.Rule: Int] = [:]

    init(context: Context) throws {
        self.context = context
        rules = try context.configuration().capture
        store = try context.store()
        progress = ProgressLine(verb: "Importing", context: context)
        bulk = try HistoryImport(store: store)
    }

    /// Adds `item` unless a capture rule rejects it; true when it is new, false when it was there, nil when skipped.
    @discardableResult
    func add(_ item: PasteboardItem, metadata: CaptureMetadata, mergingRepeats: Bool) throws(HistoryError) -> Bool? {
        if !rules.acceptsEveryItem, let rule = rules.rule(rejecting: item, application: nil) {
            skipped[rule, default: 0] += 1
            return nil
        }
        let isNew = try bulk.add(item, metadata: metadata, mergingRepeats: mergingRepeats).isNew
        if isNew { added += 1 } else { merged += 1 }
        return isNew
    }

    /// "N skipped by rules: …", when any were.
    var ruleNotes: [String] {
        let count = skipped.values.reduce(0, +)
        guard count > 0 else { return [] }
        let counts = CaptureRules.Rule.allCases.compactMap { rule in skipped[rule].map { "\($0) \(rule.rawValue)" } }
        return ["\(count) skipped by rules: " + counts.joined(separator: ", ")]
    }

    /// Commits everything added, then applies the store's retention.
    func commit() throws {
        try bulk.commit()
        progress.finish()
        if let retention = store.retention, !retention.isUnlimited { try store.applyRetention(retention) }
    }

    /// Prints the result line (once the import is on disk), then builds the search index of what came.
    func report(_ line: String) throws {
        context.stdout.line(line)
        context.stdout.flush()
        try ImportCommand.indexBacklog(of: store, in: context)
    }

    /// Rolls back what was not committed (nothing once it was), and ends the progress line.
    func abandon() {
        bulk.rollBack()
        progress.finish()
    }
}
