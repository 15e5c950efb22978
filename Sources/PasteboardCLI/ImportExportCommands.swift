import ArgumentParsing
import FoundationEssentials
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel

enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import", abstract: "Add items from a JSON Lines file (as written by 'pb export').",
        positionals: [.init("FILE", help: "The file; '-' reads standard input.")],
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

            EXAMPLE:
              pb export > backup.jsonl && pb import backup.jsonl
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let path = arguments.positionals[0]
        let name = path == "-" ? "standard input" : path
        let reader: LineReader
        do {
            reader = path == "-" ? LineReader(descriptor: context.standardInputDescriptor, name: name) : try LineReader(path: path)
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
        let rules = try context.configuration().capture
        let store = try context.store()
        let progress = ProgressLine(verb: "Importing", context: context)
        defer { progress.finish() }
        let bulk = try HistoryImport(store: store)
        defer { bulk.rollBack() }  // nothing once committed
        var decoder = ItemLine.Decoder()
        var added = 0
        var merged = 0
        var skipped: [CaptureRules.Rule: Int] = [:]
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
            if !rules.acceptsEveryItem, let rule = rules.rule(rejecting: decoded.item, application: nil) {
                skipped[rule, default: 0] += 1
                continue
            }
            do {
                if try bulk.add(decoded.item, metadata: decoded.metadata).isNew { added += 1 } else { merged += 1 }
            } catch {
                // A date the store refuses is the line's fault; anything else (a full disk) is not.
                guard error.code == .invalidInput else { throw error }
                throw failure(error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message)
            }
            progress.update(count: lineNumber, fraction: reader.totalBytes.map { Double(reader.bytesRead) / Double(max($0, 1)) })
        }
        try bulk.commit()
        progress.finish()
        if let retention = store.retention, !retention.isUnlimited { try store.applyRetention(retention) }
        var notes: [String] = []
        if merged > 0 { notes.append("\(merged) merged") }
        let skippedCount = skipped.values.reduce(0, +)
        if skippedCount > 0 {
            let counts = CaptureRules.Rule.allCases.compactMap { rule in skipped[rule].map { "\($0) \(rule.rawValue)" } }
            notes.append("\(skippedCount) skipped by rules: " + counts.joined(separator: ", "))
        }
        let summary = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
        context.stdout.line("Imported \(added) item\(added == 1 ? "" : "s")\(summary) from \(name).")
        context.stdout.flush()
        try indexBacklog(of: store, in: context)
    }

    /// Builds the search index of what the import (or an earlier one that was interrupted) brought, a slice per
    /// transaction, with its progress on a terminal.
    static func indexBacklog(of store: HistoryStore, in context: Context) throws {
        let total = context.stderrIsTerminal ? try store.unindexedCount() : 0
        let progress = ProgressLine(verb: "Indexing", context: context)
        defer { progress.finish() }
        var indexed = 0
        while true {
            let slice = try store.indexBacklog()
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
