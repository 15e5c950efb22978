import Foundation
import PasteboardHistory
import PasteboardKit
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Named pasteboards kept in the store are shared by every process of the user; non-persistent ones belong to
/// the process that created them.
@Suite(.timeLimit(.minutes(2))) struct NamedPasteboardTests {
    let sandbox: ProcessSandbox
    let server: StorePasteboardServer

    init() throws {
        sandbox = try ProcessSandbox()
        server = StorePasteboardServer(location: sandbox.storeLocation, pollInterval: .milliseconds(20))
    }

    @Test func persistentPasteboardWrittenByAnotherProcessIsReadableHere() async throws {
        try await sandbox.succeed(.pb, ["copy", "-p", "notes"], stdin: Data("written by pb".utf8))

        let board = try #require(try Pasteboard(name: .init("notes"), create: false, server: server))
        #expect(try board.string == "written by pb")
        #expect(try board.isPersistent)
        #expect(try board.changeCount == 1)
    }

    @Test func pasteboardThatWasNeverWrittenDoesNotExist() throws {
        #expect(try Pasteboard(name: .init("never-written"), create: false, server: server) == nil)
    }

    @Test func writeByAnotherProcessIsSeenAsAChange() async throws {
        let board = try #require(try Pasteboard(name: .init("shared"), create: true, server: server))
        let before = try board.changeCount
        let changes = board.changes
        try await sandbox.succeed(.pb, ["copy", "-p", "shared"], stdin: Data("first".utf8))

        let next = try await firstValue(of: changes, within: .seconds(3))
        #expect(next.map { $0 > before } == true, "changes yielded \(String(describing: next)) after \(before)")
        #expect(try board.string == "first")
    }

    @Test func writeHereIsReadByAnotherProcess() async throws {
        let board = try #require(try Pasteboard(name: .init("outgoing"), create: true, server: server))
        try board.setString("written here")

        let paste = try await sandbox.succeed(.pb, ["paste", "-p", "outgoing"])
        #expect(paste.output == "written here", "\(paste)")
    }

    @Test func uniquePasteboardIsVisibleToOthersUntilReleased() async throws {
        let board = try Pasteboard.withUniqueName(server: server)
        #expect(try !board.isPersistent)
        try board.setString("temporary")
        let whileAlive = try await sandbox.succeed(.pb, ["paste", "-p", board.name.rawValue])
        #expect(whileAlive.output == "temporary", "\(whileAlive)")

        try board.release()

        #expect(try !server.exists(board.name.rawValue))
        let afterRelease = try await sandbox.run(.pb, ["paste", "-p", board.name.rawValue])
        #expect(afterRelease.status != 0, "\(afterRelease)")
        #expect(afterRelease.stdout.isEmpty, "\(afterRelease)")
    }

    /// The store ties a non-persistent pasteboard to its creator's pid and start time. This test creates one, then
    /// hands it (with the sqlite3 tool) to a child process standing in for its creator: it lives while the child
    /// runs and is gone, for every process, once the child has exited.
    @Test func nonPersistentPasteboardDisappearsWhenItsCreatorExits() async throws {
        let board = try Pasteboard.withUniqueName(server: server)
        try board.setString("owned by the child")
        let sleep = try ProcessSandbox.tool("sleep", package: "coreutils")
        let creator = try sandbox.launch(sleep, ["30"])
        let start = try #require(Self.startTime(of: creator.pid))
        try await sandbox.sqlite(
            "UPDATE pasteboards SET owner_pid = \(creator.pid), owner_start = '\(start)' WHERE name = '\(board.name.rawValue)';"
        )
        #expect(try server.exists(board.name.rawValue), "the creator still runs")
        let whileAlive = try await sandbox.run(.pb, ["paste", "-p", board.name.rawValue])
        #expect(whileAlive.output == "owned by the child", "\(whileAlive)")

        creator.send(SIGKILL)
        #expect(try await creator.waitForExit(timeout: .seconds(5)) != nil)

        let afterExit = try await sandbox.run(.pb, ["paste", "-p", board.name.rawValue])
        #expect(afterExit.status != 0 && afterExit.stdout.isEmpty, "\(afterExit)")
        #expect(try !server.exists(board.name.rawValue))
        #expect(
            try await sandbox.sqlite("SELECT count(*) FROM pasteboards WHERE name = '\(board.name.rawValue)';") == "0")
    }

    /// Field 22 of /proc/PID/stat, as the store records it.
    private static func startTime(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
