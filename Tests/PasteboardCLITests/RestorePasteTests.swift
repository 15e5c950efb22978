import Foundation
import Testing

/// `pb restore ID --paste` where no keystroke can be typed: it says why and exits 1 before restoring, so the
/// clipboard and the history stay as they were. (The pastes themselves, into a focused GTK entry on X11, sway and
/// KWin, are in Tests/Apps/restore_paste.py, run by `make test-apps`.)
@Suite struct RestorePasteTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func topItemID() async throws -> Int {
        let history = try await sandbox.succeed(["history", "--json", "--limit", "1"])
        let items = try #require(try JSONSerialization.jsonObject(with: history.stdout) as? [[String: Any]])
        return try #require(items.first?["id"] as? Int)
    }

    @Test func withoutADisplayTheItemIsNotRestored() async throws {
        try await sandbox.copy("the older item")
        try await sandbox.copy("on the clipboard")
        let newest = try await topItemID()
        let result = try await sandbox.run(
            ["restore", String(newest - 1), "--paste"], environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": nil])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("--paste needs a display to paste into"), "\(result)")
        #expect(result.stderr.contains("Item \(newest - 1) was not restored."), "\(result)")
        #expect(try await topItemID() == newest, "the refused restore moved nothing")
        #expect(String(decoding: try await sandbox.paste(), as: UTF8.self) == "on the clipboard")
    }

    @Test func pasteOptionsAreChecked() async throws {
        try await sandbox.copy("an item")
        let id = String(try await topItemID())
        let key = try await sandbox.run(["restore", id, "--paste", "--paste-key", "alt+v"])
        #expect(key.status == 64 && key.stderr.contains("ctrl+v, shift+insert or ctrl+shift+v"), "\(key)")
        let alone = try await sandbox.run(["restore", id, "--paste-key", "shift+insert"])
        #expect(alone.status == 64 && alone.stderr.contains("--paste-key goes with --paste"), "\(alone)")
    }
}

/// `pb restore ID --plain` with no display: the store's clipboard holds the item's text alone; an item without
/// text is refused and nothing moves.
@Suite struct RestorePlainTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func thePlainTextAloneAndNothingWithoutText() async throws {
        let line = #"{"representations":[{"type":"public.html","text":"<i>slanted</i>"},"#
            + #"{"type":"public.utf8-plain-text","text":"slanted"}]}"#
        let picture = #"{"representations":[{"type":"public.png","base64":"iVBORw0KGgo="}]}"#
        let file = try sandbox.file("two.jsonl", Data((line + "\n" + picture + "\n").utf8))
        try await sandbox.succeed(["import", file.path])
        let history = try await sandbox.succeed(["history", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: history.stdout) as? [[String: Any]])
        let text = try #require(items.first { $0["kind"] as? String == "html" }?["id"] as? Int)
        let image = try #require(items.first { $0["kind"] as? String == "image" }?["id"] as? Int)
        try await sandbox.succeed(["restore", String(text), "--plain"])
        #expect(String(decoding: try await sandbox.paste(), as: UTF8.self) == "slanted")
        let html = try await sandbox.run(["paste", "--type", "public.html"])
        #expect(html.status != 0, "the HTML is not on the clipboard: \(html)")
        let refused = try await sandbox.run(["restore", String(image), "--plain"])
        #expect(refused.status == 1 && refused.stderr.contains("has no text to paste as plain text"), "\(refused)")
        let after = try await sandbox.succeed(["history", "--json"])
        let top = try #require(try JSONSerialization.jsonObject(with: after.stdout) as? [[String: Any]]).first
        #expect(top?["id"] as? Int == text, "the refused restore moved nothing")
    }
}

/// `pb restore ID… --joined SEP`: a paste stack in one paste, as one new copy of the texts joined.
@Suite struct RestoreJoinedTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    func ids() async throws -> [Int] {
        let history = try await sandbox.succeed(["history", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: history.stdout) as? [[String: Any]])
        return items.compactMap { $0["id"] as? Int }
    }

    @Test func textsJoinedInTheOrderGivenBecomeOneCopy() async throws {
        for text in ["first line", "second line", "third line"] { try await sandbox.copy(text) }
        let before = try await ids()  // newest first: third, second, first
        try await sandbox.succeed(["restore", String(before[2]), String(before[0]), "--joined", "\\n"])
        #expect(String(decoding: try await sandbox.paste(), as: UTF8.self) == "first line\nthird line")
        let after = try await ids()
        #expect(after.count == before.count + 1, "one new item")
        try await sandbox.succeed(["restore", String(before[0]), String(before[1]), "--joined", ", "])
        #expect(String(decoding: try await sandbox.paste(), as: UTF8.self) == "third line, second line")
    }

    @Test func badInputChangesNothing() async throws {
        try await sandbox.copy("words")
        let picture = #"{"representations":[{"type":"public.png","base64":"iVBORw0KGgo="}]}"#
        try await sandbox.succeed(["import", try sandbox.file("p.jsonl", Data((picture + "\n").utf8)).path])
        let before = try await ids()
        let several = try await sandbox.run(["restore", String(before[0]), String(before[1])])
        #expect(several.status == 64 && several.stderr.contains("--joined SEP"), "\(several)")
        let plain = try await sandbox.run(["restore", String(before[0]), "--joined", ",", "--plain"])
        #expect(plain.status == 64, "\(plain)")
        let image = try await sandbox.run(["restore", String(before[1]), String(before[0]), "--joined", ","])
        #expect(image.status == 1 && image.stderr.contains("has no text to join; nothing was copied"), "\(image)")
        #expect(try await ids() == before, "nothing was copied")
        #expect(String(decoding: try await sandbox.paste(), as: UTF8.self) == "words")
    }
}
