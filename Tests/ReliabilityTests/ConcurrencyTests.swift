import Foundation
import PasteboardTestSupport
import Testing

extension ReliabilityTests {
    /// Eight headless `pb` processes copy, search, pin and delete on one store while the daemon records X11 copies
    /// into it: nobody sees "database is locked", and no write is lost. The longer run is
    /// `scripts/reliability/concurrency.py`.
    @Suite struct Concurrency {
        /// What one worker did and saw.
        struct Report: Sendable {
            var kept: [String] = []
            var deleted: [String] = []
            var pinned: [String] = []
            var runs = 0
            /// Failed runs and stderr lines mentioning a lock, each with its command.
            var problems: [String] = []
        }

        static let workers = 8
        static let iterations = 16

        @Test func eightProcessesAndACapturingDaemonShareOneStoreWithoutLocksOrLostWrites() async throws {
            let harness = try await Harness(label: "pbconc", display: "the concurrency test")
            let daemon = try await harness.startDaemon()
            let watch = try await harness.startWatch()
            let token = String(UInt32.random(in: 0...UInt32.max), radix: 16)

            let reports = try await withThrowingTaskGroup(of: Report.self) { group in
                for worker in 0..<Self.workers {
                    group.addTask { try await Self.work(worker, token: token, harness: harness) }
                }
                group.addTask {
                    // The daemon's side: X11 copies made with xclip while the workers run.
                    for index in 0..<20 {
                        try await harness.xclipCopy(Data("x11-\(index)-\(token)".utf8))
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    return Report()
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            let problems = reports.flatMap(\.problems)
            #expect(
                problems.isEmpty,
                "\(problems.count) problems in \(reports.map(\.runs).reduce(0, +)) runs: \(problems.prefix(10))")
            _ = try await eventually(within: .seconds(5), every: .milliseconds(300)) {
                let count = watch.captures.count
                try await Task.sleep(for: .milliseconds(300))
                return watch.captures.count == count
            }
            try await harness.stop(daemon: daemon)
            #expect(!daemon.stderr.lowercased().contains("locked"), "\(daemon.stderr.suffix(2000))")
            #expect(!daemon.stderr.contains("could not record"), "\(daemon.stderr.suffix(2000))")

            // Every successful copy is found, unless its own process deleted it; every pin held.
            #expect(try await harness.integrityCheck() == "ok")
            let texts = try await harness.itemTexts()
            let stored = Set(texts.values.compactMap { $0 })
            let kept = reports.flatMap(\.kept)
            let lost = kept.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "\(lost.count) of \(kept.count) copies lost: \(lost.prefix(10))")
            let resurrected = reports.flatMap(\.deleted).filter { stored.contains($0) }
            #expect(resurrected.isEmpty, "deleted items are back: \(resurrected)")
            for text in kept.shuffled().prefix(16) {
                let found = try await harness.search(text)
                #expect(found.map(\.preview) == [text], "pb search \(text)")
            }
            let pinned = Set(
                try await harness.sqlite(
                    "SELECT CAST(coalesce(i.text_data, b.data) AS TEXT) FROM items i LEFT JOIN blobs b ON b.id = i.text_blob "
                        + "WHERE i.pinned;"
                ).split(separator: "\n").map(String.init))
            let unpinned = reports.flatMap(\.pinned).filter {
                !pinned.contains($0) && !reports.flatMap(\.deleted).contains($0)
            }
            #expect(unpinned.isEmpty, "pins lost: \(unpinned)")
            // What the daemon announced is there too.
            let announced = watch.captures.compactMap(\.id)
            #expect(!announced.isEmpty, "the daemon captured none of the xclip copies: \(daemon.stderr.suffix(2000))")
            let missing = announced.filter { texts[$0] == nil }
            #expect(missing.isEmpty, "announced captures missing: \(missing)")
        }

        /// One worker: copies unique texts, finds each of them, pins some, deletes some of its own, and reads.
        static func work(_ worker: Int, token: String, harness: Harness) async throws -> Report {
            var report = Report()
            let headless: [String: String?] = ["DISPLAY": nil, "PB_BACKEND": "headless"]
            func run(_ arguments: [String], stdin: Data? = nil, mayFindNothing: Bool = false) async throws
                -> ProcessResult
            {
                let result = try await harness.pb(arguments, stdin: stdin, environment: headless, timeout: .seconds(60))
                report.runs += 1
                let command = "pb " + arguments.joined(separator: " ")
                if !result.succeeded
                    && !(mayFindNothing && result.status == 1 && result.stderr.contains("No items match"))
                {
                    report.problems.append("\(command): \(result)")
                }
                for line in result.stderr.split(separator: "\n") where line.lowercased().contains("locked") {
                    report.problems.append("\(command): \(line)")
                }
                return result
            }
            func id(of text: String) async throws -> Int64? {
                let result = try await run(["search", "--json", text])
                let array = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [[String: Any]] ?? []
                let ids = array.filter { $0["preview"] as? String == text }.compactMap {
                    ($0["id"] as? NSNumber)?.int64Value
                }
                if ids.count != 1 {
                    report.problems.append("pb search --json \(text) found \(ids.count) items: \(result)")
                }
                return ids.first
            }

            for iteration in 0..<iterations {
                let text = "w\(worker)-\(iteration)-\(token)"
                let copied = try await run(["copy"], stdin: Data(text.utf8))
                if copied.succeeded { report.kept.append(text) }
                switch iteration % 4 {
                case 0:
                    _ = try await id(of: text)
                case 1:
                    if let id = try await id(of: text), try await run(["pin", String(id)]).succeeded {
                        report.pinned.append(text)
                    }
                case 2:
                    _ = try await run(["history", "--limit", "20"])
                default:
                    // Delete this worker's oldest surviving item.
                    guard let oldest = report.kept.first, let id = try await id(of: oldest) else { break }
                    if try await run(["delete", String(id)]).succeeded {
                        report.kept.removeFirst()
                        report.deleted.append(oldest)
                    }
                }
                _ = try await run(["search", "w\((worker + 1) % workers)-"], mayFindNothing: true)
            }
            _ = try await run(["stats"])
            return report
        }
    }
}
