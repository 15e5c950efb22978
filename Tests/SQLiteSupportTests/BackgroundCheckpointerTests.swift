import Foundation
import SQLiteSupport
import Synchronization
import Testing

/// Checkpoints moved off the commits: a connection handed to a `BackgroundCheckpointer` never checkpoints inside
/// its own commits, and the checkpointer's thread keeps the log short, on a real WAL database.
@Suite struct BackgroundCheckpointerTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("test.sqlite").path }

    /// A WAL database with a table, and `commits` commits of one 3 KiB row each (a frame or more apiece).
    func fill(_ db: Connection, commits: Int) throws {
        for index in 0..<commits {
            try db.run("INSERT INTO t(body) VALUES (?)", String(repeating: "\(index % 10)", count: 3000))
        }
    }

    func open() throws -> Connection {
        let db = try Connection(path: path)
        _ = try db.row("PRAGMA journal_mode = WAL")
        try db.execute("PRAGMA synchronous = NORMAL; CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, body TEXT)")
        return db
    }

    @Test func commitsNoLongerCheckpointThemselves() throws {
        let db = try open()
        let checkpointer = BackgroundCheckpointer(path: path, thresholdFrames: 1_000_000)
        db.checkpoint(in: checkpointer)
        try fill(db, commits: 1500)
        // SQLite's own checkpoint would have run at 1,000 frames and restarted the log; every frame is still there.
        let reader = try Connection(path: path)
        _ = try reader.row("PRAGMA schema_version")  // reads the header: the connection knows it is WAL
        let frames = try reader.checkpointPassively().logFrames
        #expect(frames >= 1500, "\(frames) frames in the log")
        #expect(checkpointer.checkpoints == 0)
    }

    @Test func theCheckpointerCopiesTheLogOnItsOwnThreadAndTheLogRestarts() async throws {
        let db = try open()
        let results = Mutex<[Connection.CheckpointResult]>([])
        let checkpointer = BackgroundCheckpointer(path: path, thresholdFrames: 200, capFrames: 1_000_000) { result in
            if case .success(let done) = result { results.withLock { $0.append(done) } }
        }
        db.checkpoint(in: checkpointer)
        try fill(db, commits: 600)
        for _ in 0..<300 where checkpointer.checkpoints == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(checkpointer.checkpoints >= 1)
        #expect(results.withLock { $0 }.contains { $0.checkpointedFrames > 0 }, "\(results.withLock { $0.prefix(5) })")
        // Writers pause: a checkpoint catches up with the whole log, and a commit after it starts the log from its
        // beginning. A commit now and then (the one that finds the log long asks for that checkpoint) shows when.
        var commits = 0
        for _ in 0..<200 {
            try await Task.sleep(for: .milliseconds(50))
            try db.run("INSERT INTO t(body) VALUES (?)", "after the pause")
            commits += 1
            if checkpointer.loggedFrames < 200 { break }
        }
        #expect(checkpointer.loggedFrames < 200, "\(checkpointer.loggedFrames) frames in the log after the pause")
        #expect(try db.row("SELECT count(*) AS n FROM t")?.int("n") == Int64(600 + commits))
    }

    @Test func writersThatNeverPauseStillKeepTheLogBounded() async throws {
        let db = try open()
        let checkpointer = BackgroundCheckpointer(path: path, thresholdFrames: 50, capFrames: 400)
        db.checkpoint(in: checkpointer)
        try fill(db, commits: 3000)  // about 6,000 frames, without a pause
        // The log file never shrinks: its size is the most frames it ever held (a frame is a page and a header).
        // Without the cap the passive checkpoints never catch up with this writer and the log holds them all.
        let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        let longest = walBytes / (4096 + 24)
        #expect(checkpointer.checkpoints >= 1)
        #expect(longest < 4_000, "the log reached \(longest) frames")
        #expect(try db.row("SELECT count(*) AS n FROM t")?.int("n") == 3000)
    }

    @Test func aFailedCheckpointIsReported() async throws {
        let db = try open()
        let failures = Mutex<[SQLiteError]>([])
        let checkpointer = BackgroundCheckpointer(path: path, thresholdFrames: 10) { result in
            if case .failure(let error) = result { failures.withLock { $0.append(error) } }
        }
        db.checkpoint(in: checkpointer)
        // The database file's directory made unreadable to the checkpointer's own connection: it cannot open.
        let moved = path + ".moved"
        try FileManager.default.moveItem(atPath: path, toPath: moved)
        defer { try? FileManager.default.moveItem(atPath: moved, toPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try fill(db, commits: 20)
        for _ in 0..<200 where checkpointer.checkpoints == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(checkpointer.checkpoints >= 1)
        #expect(!failures.withLock { $0 }.isEmpty)
    }
}
