import Foundation
import PasteboardTestSupport
import Testing

extension X11IntegrationTests {
    /// A paste stack (issue 26, item 5): `pb restore ID… --stack` serves the items one per paste, in the order
    /// given, through the daemon; the last one stays. Each `xclip -o` is one paste.
    @Suite struct PasteStack {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        /// Copies `texts` in order and returns their ids, in the same order.
        func copied(_ texts: [String]) async throws -> [Int64] {
            for text in texts { try await session.pbSucceeding(["copy"], stdin: Data(text.utf8)) }
            let history = try await session.history()
            return try texts.map { text in try #require(history.first { $0.preview == text }?.id, "\(history)") }
        }

        func paste() async throws -> String {
            let result = try await session.xclipPaste()
            return result.succeeded ? String(decoding: result.stdout, as: UTF8.self) : "(\(result))"
        }

        @Test func eachPasteGetsTheNextItemAndTheLastOneStays() async throws {
            let daemon = try await session.startDaemon()
            let ids = try await copied(["one", "two", "three", "newest"])
            // Not in the history's order: the order given.
            let stacked = [ids[2], ids[0], ids[1]]
            let result = try await session.pbSucceeding(["restore"] + stacked.map(String.init) + ["--stack"])
            #expect(result.stderr.contains("2 more follow, one per paste"))
            #expect(try await paste() == "three")
            #expect(try await paste() == "one")
            #expect(try await paste() == "two")
            #expect(try await paste() == "two", "the last item stays on the clipboard")
            let order = try await session.history().map(\.preview)
            #expect(order.first == "newest", "a paste stack reorders nothing: \(order)")
            try await session.stop(daemon: daemon)
        }

        @Test func anotherCopyOrRestoreEndsTheStack() async throws {
            let daemon = try await session.startDaemon()
            let ids = try await copied(["alpha", "beta", "gamma", "other"])
            try await session.pbSucceeding(["restore", String(ids[0]), String(ids[1]), String(ids[2]), "--stack"])
            #expect(try await paste() == "alpha")
            // A paste-once copy: after its paste the clipboard is empty, and the stack's "gamma" does not come back.
            try await session.pbSucceeding(["copy", "--once"], stdin: Data("once".utf8))
            #expect(try await paste() == "once")
            let after = try await session.xclipPaste()
            #expect(!after.succeeded || after.stdout.isEmpty, "\(after)")
            // And a restore.
            try await session.pbSucceeding(["restore", String(ids[0]), String(ids[1]), "--stack"])
            try await session.pbSucceeding(["restore", String(ids[3])])
            #expect(try await paste() == "other")
            #expect(try await paste() == "other")
            try await session.stop(daemon: daemon)
        }

        @Test func aCopyInAnotherApplicationEndsTheStack() async throws {
            let daemon = try await session.startDaemon()
            let ids = try await copied(["first", "second", "third"])
            try await session.pbSucceeding(["restore", String(ids[0]), String(ids[1]), String(ids[2]), "--stack"])
            #expect(try await paste() == "first")
            try await session.xclipCopy("from xclip")
            _ = try await session.waitForEntry { $0.preview == "from xclip" }
            #expect(try await paste() == "from xclip")
            #expect(try await paste() == "from xclip")
            try await session.stop(daemon: daemon)
        }

        @Test func badRequestsChangeNothing() async throws {
            let ids = try await copied(["kept", "also"])
            // No daemon: nothing counts the pastes.
            let noDaemon = try await session.pb(["restore", String(ids[0]), String(ids[1]), "--stack"])
            #expect(noDaemon.status == 1)
            #expect(noDaemon.stderr.contains("pb daemon"), "\(noDaemon)")
            let daemon = try await session.startDaemon(onEmptyHistory: false)
            try await session.pbSucceeding(["restore", String(ids[0])])
            #expect(try await paste() == "kept")
            let unknown = try await session.pb(["restore", String(ids[1]), "999999", "--stack"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("999999"), "\(unknown)")
            for extra in [["--paste"], ["--plain"], ["--joined", ","]] {
                let refused = try await session.pb(["restore", String(ids[0]), String(ids[1]), "--stack"] + extra)
                #expect(refused.status == 64, "\(extra): \(refused)")
            }
            #expect(try await paste() == "kept", "the clipboard is as it was")
            #expect(try await paste() == "kept")
            try await session.stop(daemon: daemon)
        }
    }
}
