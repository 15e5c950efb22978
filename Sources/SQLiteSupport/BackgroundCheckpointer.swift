import Dispatch
import Synchronization
internal import CSQLite

/// Checkpoints a database's write-ahead log on a thread of its own, so that no commit waits for it.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log past 1,000 frames: that commit then
/// copies the log into the database file and syncs both, several milliseconds on a plain disk, and whoever waits
/// for that commit (a captured copy, the next copy behind it) waits too. With a connection handed to
/// `Connection.checkpoint(in:)`, its commits only report the log's length here, and past `thresholdFrames` a
/// passive checkpoint runs on this object's queue through a connection of its own. A passive checkpoint takes no
/// lock that writers wait for, so commits go on meanwhile; the log is restarted by the first commit after a
/// checkpoint that copied every frame, as with the automatic one. Writers that never pause could keep a passive
/// checkpoint from ever catching up, and the log would grow without end: past `capFrames` the checkpoint waits for
/// the writer of the moment and holds the next one back until the log is copied (`SQLITE_CHECKPOINT_RESTART`), so
/// the log stays bounded and only a long storm of commits ever waits. Should this queue's thread not run at all
/// while the log grows (a machine starved of processor time), a commit that takes the log past twice `capFrames`
/// checkpoints it itself, as SQLite's automatic checkpoint would, so the bound holds whatever the scheduler does.
/// Idle, it costs nothing: no timer, no thread awake.
public final class BackgroundCheckpointer: Sendable {
    /// The log's length, in frames, past which a checkpoint starts (SQLite's automatic default).
    public let thresholdFrames: Int
    /// The log's length past which the checkpoint holds writers back until it has copied everything.
    public let capFrames: Int
    private let path: String
    private let queue = DispatchQueue(label: "pasteboard.sqlite.checkpoint", qos: .utility)
    private let state = Mutex(State())
    /// Called on the queue with what each checkpoint did, or its error.
    private let report: @Sendable (Result<Connection.CheckpointResult, SQLiteError>) -> Void

    private struct State {
        var isQueued = false
        var checkpoints = 0
        var writerCheckpoints = 0
        /// The log's length after the latest commit.
        var frames = 0
    }

    /// A checkpointer for the database at `path` (a WAL database). `report` hears of every checkpoint it runs.
    public init(
        path: String, thresholdFrames: Int = 1000, capFrames: Int? = nil,
        report: @escaping @Sendable (Result<Connection.CheckpointResult, SQLiteError>) -> Void = { _ in }
    ) {
        self.path = path
        self.thresholdFrames = thresholdFrames
        self.capFrames = capFrames ?? thresholdFrames * 8
        self.report = report
    }

    /// How many checkpoints have run.
    public var checkpoints: Int { state.withLock { $0.checkpoints } }
    /// How many commits checkpointed the log themselves, past twice `capFrames`.
    public var writerCheckpoints: Int { state.withLock { $0.writerCheckpoints } }

    /// The log's length, in frames, after the latest commit of the connection handed to it.
    public var loggedFrames: Int { state.withLock { $0.frames } }

    /// After a commit left `frames` frames in the log: starts a checkpoint if the log is long enough and none is
    /// queued or running. True when the log is past twice the cap all the same: the committing connection then
    /// checkpoints it before its commit returns.
    func logGrew(to frames: Int) -> Bool {
        let start = state.withLock { state -> Bool in
            state.frames = frames
            if state.isQueued || frames < thresholdFrames { return false }
            state.isQueued = true
            return true
        }
        guard start else { return frames >= 2 * capFrames }
        queue.async { [self] in
            let result = Result { () throws(SQLiteError) in try checkpointOnce() }
            state.withLock {
                $0.isQueued = false
                $0.checkpoints += 1
            }
            report(result)
        }
        return false
    }

    /// Waits until the checkpoint queued or running on the queue, if any, has ended: it holds SQLite's checkpoint
    /// lock, which a committing connection's own checkpoint cannot wait for (SQLite answers busy at once), so on a
    /// machine that starved this queue's thread the log went on growing past twice the cap. Called from the commit
    /// hook, after the commit released its locks: the queue's checkpoint does not wait for this thread.
    func waitForQueued() {
        queue.sync {}
    }

    /// The committing connection's own checkpoint, past twice the cap, has run.
    func writerCheckpointed() {
        state.withLock { $0.writerCheckpoints += 1 }
    }

    /// A passive checkpoint through a short-lived connection: one kept open would hold its page cache and schema
    /// for the daemon's whole life, and a checkpoint every thousand frames can afford the open.
    private func checkpointOnce() throws(SQLiteError) -> Connection.CheckpointResult {
        let connection = try Connection(path: path, mode: .readWrite(create: false), followsSymbolicLinks: false)
        // A new connection learns that the file is in WAL mode from its header, read with the first statement.
        _ = try connection.row("PRAGMA schema_version")
        let frames = state.withLock { $0.frames }
        return try frames >= capFrames ? connection.checkpointRestarting() : connection.checkpointPassively()
    }
}

extension Connection {
    /// Hands this connection's checkpoints to `checkpointer`: its commits no longer checkpoint themselves (the
    /// write-ahead-log hook replaces SQLite's automatic checkpoint) and report the log's length to it instead.
    public func checkpoint(in checkpointer: BackgroundCheckpointer) {
        let box = Unmanaged.passRetained(checkpointer)
        if let previous = walHookContext { previous.release() }
        walHookContext = box
        sqlite3_wal_hook(
            handle,
            { context, db, name, frames in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<BackgroundCheckpointer>.fromOpaque(context).takeUnretainedValue()
                guard checkpointer.logGrew(to: Int(frames)) else { return SQLITE_OK }
                // As SQLite's own automatic checkpoint does from this hook: passive, on the committing connection,
                // once the queue's checkpoint (holding the checkpoint lock) has ended. Its result is left to the next
                // commit: any failure leaves the log long, so the next commit tries again.
                checkpointer.waitForQueued()
                _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                checkpointer.writerCheckpointed()
                return SQLITE_OK
            }, box.toOpaque())
    }
}
