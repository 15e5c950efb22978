import Foundation
import PasteboardHistory
import PasteboardKit
import PasteboardTestSupport
import Testing

@Suite struct StorePasteboardServerTests {
    let temporary: TemporaryDirectory
    let server: StorePasteboardServer

    init() throws {
        temporary = try TemporaryDirectory()
        server = StorePasteboardServer(location: temporary.storeLocation, pollInterval: .milliseconds(20))
    }

    var location: StoreLocation { temporary.storeLocation }

    /// A second server on the same files: what another process would use.
    func otherProcessServer() -> StorePasteboardServer {
        StorePasteboardServer(location: location, pollInterval: .milliseconds(20))
    }

    @Test func setStringThenReadIt() throws {
        let board = Pasteboard(name: Pasteboard.Name("notes"), server: server)
        #expect(try board.changeCount == 0)
        #expect(try board.setString("hello") == 1)
        #expect(try board.string == "hello")
        #expect(try board.types == [.utf8PlainText])
        #expect(try board.changeCount == 1)
        #expect(try board.setString("world") == 2)
        #expect(try board.string == "world")
    }

    @Test func multipleItemsKeepTheirOrder() throws {
        let board = Pasteboard(name: Pasteboard.Name("many"), server: server)
        let items = (0..<5).map { PasteboardItem(string: "item \($0)") } + [pngItem(seed: 1)]
        try board.setItems(items)
        #expect(try board.items == items)
        #expect(try board.contains(.png))
        #expect(try board.string == "item 0")
    }

    @Test func uniquePasteboardIsCreatedAndNotPersistent() throws {
        let board = try Pasteboard.withUniqueName(server: server)
        #expect(board.name.rawValue.hasPrefix("unique."))
        #expect(try server.exists(board.name.rawValue))
        #expect(try !board.isPersistent)
        try board.setString("scratch")
        #expect(try board.string == "scratch")
        let other = try Pasteboard.withUniqueName(server: server)
        #expect(other.name != board.name)
        try board.release()
        #expect(try !server.exists(board.name.rawValue))
    }

    @Test func namedPasteboardIsOnlyCreatedWhenAsked() throws {
        #expect(try Pasteboard(name: Pasteboard.Name("lazy"), create: false, server: server) == nil)
        let created = try #require(try Pasteboard(name: Pasteboard.Name("lazy"), create: true, server: server))
        #expect(try created.isPersistent)
        #expect(try Pasteboard(name: Pasteboard.Name("lazy"), create: false, server: server) != nil)
    }

    @Test func missingPasteboardThrowsNoSuchPasteboard() {
        let board = Pasteboard(name: Pasteboard.Name("missing"), server: server)
        let error = #expect(throws: PasteboardError.self) { _ = try board.items }
        #expect(error?.code == .noSuchPasteboard)
    }

    @Test func twoServersOnOneLocationSeeEachOthersWrites() throws {
        let other = otherProcessServer()
        let mine = Pasteboard(name: Pasteboard.Name("shared"), server: server)
        let theirs = Pasteboard(name: Pasteboard.Name("shared"), server: other)

        try mine.setString("from me")
        #expect(try theirs.string == "from me")
        #expect(try theirs.changeCount == 1)

        try theirs.setString("from them")
        #expect(try mine.string == "from them")
        #expect(try mine.changeCount == 2)

        try theirs.release()
        #expect(try !server.exists("shared"))
    }

    @Test func writesToGeneralAreRecordedInHistory() throws {
        let general = Pasteboard(name: .general, server: server)
        try general.setString("into the history")
        try general.setString("into the history")
        try Pasteboard(name: Pasteboard.Name("elsewhere"), server: server).setString("not recorded")

        let store = try HistoryStore(location: location)
        let items = try store.items(limit: 10)
        try #require(items.count == 1)
        #expect(items[0].preview == "into the history")
        #expect(items[0].selection == "headless")
        #expect(items[0].copyCount == 2)
    }

    @Test func changesYieldAfterAWriteFromAnotherServer() async throws {
        let other = otherProcessServer()
        let watched = Pasteboard(name: Pasteboard.Name("watched"), server: server)
        try watched.setString("before watching")

        let changes = watched.changes
        try Pasteboard(name: Pasteboard.Name("watched"), server: other).setString("after")

        let count = try await firstValue(of: changes, within: .seconds(10))
        #expect(count == 2)
        #expect(try watched.string == "after")
    }

    @Test func changesYieldEachLaterCount() async throws {
        let other = otherProcessServer()
        let watched = Pasteboard(name: .find, server: server)
        let changes = watched.changes
        let writer = Pasteboard(name: .find, server: other)

        try writer.setString("one")
        #expect(try await firstValue(of: changes, within: .seconds(10)) == 1)
        // Wait past a poll so the second write is seen on its own.
        try await Task.sleep(for: .milliseconds(100))
        try writer.setString("two")
        #expect(try await firstValue(of: changes, within: .seconds(10)) == 2)
    }

    @Test func concurrentWritersFromTwoServersCountEveryWrite() async throws {
        let servers = [server, otherProcessServer()]
        let writesPerServer = 20
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, server) in servers.enumerated() {
                group.addTask {
                    let board = Pasteboard(name: Pasteboard.Name("busy"), server: server)
                    for write in 0..<writesPerServer { try board.setString("server \(index) write \(write)") }
                }
            }
            try await group.waitForAll()
        }
        #expect(try server.changeCount(of: "busy") == servers.count * writesPerServer)
    }
}
