import Foundation
import PasteboardTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` that is sure to land while a process is writing the store.
///
/// SQLite in WAL mode takes a POSIX lock on byte 120 of the `-shm` file (the WAL write lock) from `BEGIN IMMEDIATE`
/// to `COMMIT`/`ROLLBACK`, and on byte 121 while it checkpoints; the kernel lists both in `/proc/locks` with the
/// holder's pid. The process is stopped (SIGSTOP) so the locks it holds can be read at the very instant of the kill;
/// when it is not writing, it is continued and looked at again a random 0.5–4 ms later.
enum MidWriteKill {
    /// Where the process was when it was killed.
    enum State: String, Sendable {
        /// Inside a write transaction.
        case transaction
        /// Copying the WAL back into the database.
        case checkpoint
        /// Neither (only when the deadline passed first).
        case idle
        /// It had exited before it could be killed.
        case exited
    }

    /// Kills `process` the first time it is seen writing `database` (and `ready()` holds), or wherever it is once
    /// `deadline` has passed; returns where that was and how many looks it took.
    static func kill(
        _ process: ChildProcess, database: String, deadline: Duration, ready: () -> Bool = { true }
    ) async throws -> (state: State, looks: Int) {
        let end = ContinuousClock.now + deadline
        var looks = 0
        while true {
            guard process.isRunning else { return (.exited, looks) }
            looks += 1
            process.send(SIGSTOP)
            guard await isStopped(process.pid) else {
                process.send(SIGKILL)
                _ = try await process.waitForExit(timeout: .seconds(10))
                return (.exited, looks)
            }
            let state = writeState(of: process.pid, database: database)
            if (state != .idle && ready()) || ContinuousClock.now >= end {
                process.send(SIGKILL)
                guard try await process.waitForExit(timeout: .seconds(10)) != nil else {
                    throw SetupFailure("pid \(process.pid) survived SIGKILL for 10 s")
                }
                return (state, looks)
            }
            process.send(SIGCONT)
            try await Task.sleep(for: .microseconds(Int.random(in: 500...4000)))
        }
    }

    /// The SQLite lock `pid` holds on `database`'s WAL index right now.
    static func writeState(of pid: pid_t, database: String) -> State {
        var info = stat()
        guard stat(database + "-shm", &info) == 0,
            let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return .idle }
        var state = State.idle
        for line in locks.split(separator: "\n") {
            // "5: POSIX  ADVISORY  WRITE 30427 fe:00:16220663 120 120"
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[1] == "POSIX", fields[3] == "WRITE", fields[4] == "\(pid)",
                fields[5].split(separator: ":").last == "\(info.st_ino)"
            else { continue }
            if fields[6] == "120" { return .transaction }
            if fields[6] == "121" { state = .checkpoint }
        }
        return state
    }

    /// Waits (up to 2 s) until SIGSTOP has taken effect: the state in /proc/PID/stat is `T`.
    private static func isStopped(_ pid: pid_t) async -> Bool {
        let end = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < end {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let state = stat[stat.index(after: close)...].split(separator: " ").first
            if state == "T" || state == "t" { return true }
            if state == "Z" || state == "X" { return false }
            try? await Task.sleep(for: .microseconds(200))
        }
        return false
    }
}
