import Foundation
import PasteboardTestSupport
import Testing

/// `pb history`, `show`, `pin`, `unpin`, `delete`, `clear`, `restore` and `decode` through the built executable.
@Suite struct HistoryCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Copies each text in order (so the last is newest) and returns their ids, oldest first.
    func copyAll(_ texts: [String]) async throws -> [Int64] {
        for text in texts { try await sandbox.copy(text) }
        let entries = try await sandbox.history()
        #expect(entries.count == texts.count)
        return entries.reversed().map(\.id)
    }

    // MARK: - history

    @Test func tableListsNewestFirst() async throws {
        let ids = try await copyAll(["alpha one", "beta two", "gamma three"])
        let result = try await sandbox.succeed(["history"])
        let lines = result.outputLines
        #expect(lines.count == 3, "\(result)")
        #expect(lines[0].contains("gamma three"))
        #expect(lines[1].contains("beta two"))
        #expect(lines[2].contains("alpha one"))
        #expect(lines[0].trimmingCharacters(in: .whitespaces).hasPrefix("\(ids[2]) "))
        #expect(lines.allSatisfy { $0.contains(" text ") }, "\(result)")
        #expect(result.stderr.isEmpty)
    }

    @Test func limitShowsTheNewest() async throws {
        _ = try await copyAll(["one", "two", "three", "four"])
        let result = try await sandbox.succeed(["history", "--limit", "2"])
        #expect(result.outputLines.count == 2)
        #expect(result.outputLines[0].hasSuffix("four"))
        #expect(result.outputLines[1].hasSuffix("three"))
        let short = try await sandbox.succeed(["history", "-n", "1"])
        #expect(short.outputLines.count == 1)
        let bad = try await sandbox.run(["history", "--limit", "0"])
        #expect(bad.status == 64, "\(bad)")
        #expect(bad.errorLines.first == "Error: --limit needs a positive whole number, not '0'.")
    }

    @Test func jsonParsesWithIDsAndPreviews() async throws {
        let ids = try await copyAll(["first entry", "second\nentry with \"quotes\" and \\ backslash"])
        let result = try await sandbox.succeed(["history", "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        #expect(array.count == 2)
        #expect((array[0]["id"] as? NSNumber)?.int64Value == ids[1])
        #expect((array[1]["id"] as? NSNumber)?.int64Value == ids[0])
        #expect(array[1]["preview"] as? String == "first entry")
        #expect((array[0]["preview"] as? String)?.contains("\"quotes\" and \\ backslash") == true)
        #expect(array[0]["kind"] as? String == "text")
        #expect(array[0]["pinned"] as? Bool == false)
        let same = try await sandbox.succeed(["history", "--format", "json"])
        #expect(try Sandbox.entries(fromJSON: same.stdout) == Sandbox.entries(fromJSON: result.stdout))
    }

    @Test func emptyHistoryIsAnEmptyJSONArray() async throws {
        let result = try await sandbox.succeed(["history", "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [Any])
        #expect(array.isEmpty)
        let table = try await sandbox.succeed(["history"])
        #expect(table.stdout.isEmpty)
    }

    @Test func dmenuLinesAreIDTabPreview() async throws {
        let ids = try await copyAll(["apple pie", "banana\tsplit\nwith two lines"])
        let result = try await sandbox.succeed(["history", "--format", "dmenu"])
        #expect(result.outputLines.count == 2, "\(result)")
        let fields = result.outputLines.map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
        #expect(fields[0].first == String(ids[1]))
        #expect(fields[1] == [String(ids[0]), "apple pie"])
        #expect(!fields[0][1].contains("\n") && !fields[0][1].contains("\t"), "a preview must stay on one field")
        let bad = try await sandbox.run(["history", "--format", "xml"])
        #expect(bad.status == 64)
        #expect(bad.errorLines.first == "Error: Unknown format 'xml'. Use table, dmenu or json.")
    }

    @Test func typeFilterSelectsImages() async throws {
        try await sandbox.copy("some text")
        try await sandbox.copy(Payloads.png)
        try await sandbox.copy("more text")
        let images = try await sandbox.history(["--type", "image"])
        #expect(images.count == 1)
        #expect(images.first?.kind == "image")
        #expect(images.first?.types == ["public.png"])
        let texts = try await sandbox.history(["--type", "text"])
        #expect(texts.map(\.preview) == ["more text", "some text"])
    }

    @Test func pinnedFilterAndMarker() async throws {
        let ids = try await copyAll(["keep me", "plain", "also plain"])
        let pin = try await sandbox.succeed(["pin", String(ids[0])])
        #expect(pin.outputLines == ["Pinned \(ids[0])."])
        let table = try await sandbox.succeed(["history"])
        let pinnedLine = try #require(table.outputLines.first { $0.contains("keep me") })
        #expect(pinnedLine.trimmingCharacters(in: .whitespaces).hasPrefix("\(ids[0])* "), "\(table)")
        #expect(table.outputLines.filter { $0.contains("\(ids[1])*") || $0.contains("\(ids[2])*") }.isEmpty)
        let pinned = try await sandbox.history(["--pinned"])
        #expect(pinned.map(\.id) == [ids[0]])
        #expect(pinned.first?.isPinned == true)

        let unpin = try await sandbox.succeed(["unpin", String(ids[0])])
        #expect(unpin.outputLines == ["Unpinned \(ids[0])."])
        #expect(try await sandbox.history(["--pinned"]).isEmpty)
        let after = try await sandbox.succeed(["history"])
        #expect(!after.output.contains("*"), "\(after)")
    }

    @Test func pinningAnUnknownItemFails() async throws {
        _ = try await copyAll(["only"])
        let result = try await sandbox.run(["pin", "4242"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: No history item with id 4242."])
    }

    // MARK: - show

    @Test func showPrintsDetailsAndText() async throws {
        let ids = try await copyAll(["shown text\nsecond line"])
        let result = try await sandbox.succeed(["show", String(ids[0])])
        #expect(result.outputLines.first == "id:          \(ids[0])")
        #expect(result.outputLines.contains("kind:        text"))
        #expect(result.outputLines.contains { $0.hasPrefix("  public.utf8-plain-text") || $0.hasPrefix("  public.plain-text") })
        #expect(result.output.hasSuffix("\nshown text\nsecond line\n"), "\(result)")
        let json = try await sandbox.succeed(["show", "--json", String(ids[0])])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((object["id"] as? NSNumber)?.int64Value == ids[0])
        let representations = try #require(object["representations"] as? [[String: Any]])
        #expect((representations.first?["size"] as? NSNumber)?.intValue == "shown text\nsecond line".utf8.count)
    }

    @Test func showOfAnUnknownIDFails() async throws {
        let result = try await sandbox.run(["show", "999"])
        #expect(result.status == 1)
        #expect(result.errorLines == ["Error: No history item with id 999."])
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: ["abc", "0", "-3", "1.5"])
    func showOfANonNumberIsAUsageError(id: String) async throws {
        let result = try await sandbox.run(["show", id])
        #expect(result.status == 64, "\(result)")
        #expect(result.errorLines.first == "Error: '\(id)' is not an item id (ids are the numbers 'pb history' shows).")
        #expect(result.errorLines.contains { $0.hasPrefix("Usage: pb show") })
    }

    // MARK: - delete and clear

    @Test func deleteRemovesTheItem() async throws {
        let ids = try await copyAll(["doomed", "survivor"])
        let result = try await sandbox.succeed(["delete", String(ids[0])])
        #expect(result.outputLines == ["Deleted \(ids[0])."])
        #expect(try await sandbox.history().map(\.id) == [ids[1]])
        let again = try await sandbox.run(["show", String(ids[0])])
        #expect(again.status == 1)
    }

    @Test func deleteOfSeveralIsAllOrNothing() async throws {
        let ids = try await copyAll(["one", "two", "three"])
        let result = try await sandbox.run(["delete", String(ids[0]), "9999", String(ids[2])])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: No history item with id 9999."])
        #expect(try await sandbox.history().count == 3)
        let both = try await sandbox.succeed(["delete", String(ids[0]), String(ids[2])])
        #expect(both.outputLines == ["Deleted \(ids[0]) and \(ids[2])."])
        #expect(try await sandbox.history().map(\.id) == [ids[1]])
    }

    @Test func clearKeepsPinnedOnlyWhenAsked() async throws {
        let ids = try await copyAll(["pinned one", "loose one", "loose two"])
        try await sandbox.succeed(["pin", String(ids[0])])
        let keep = try await sandbox.succeed(["clear", "--keep-pinned"])
        #expect(keep.outputLines == ["Deleted 2 items."])
        let left = try await sandbox.history()
        #expect(left.map(\.id) == [ids[0]])
        #expect(left.first?.isPinned == true)
        let all = try await sandbox.succeed(["clear"])
        #expect(all.outputLines == ["Deleted 1 item."])
        #expect(try await sandbox.history().isEmpty)
    }

    // MARK: - dedup and restore

    @Test func copyingTheSameTextTwiceKeepsOneEntryOnTop() async throws {
        try await sandbox.copy("repeated")
        try await sandbox.copy("in between")
        try await sandbox.copy("repeated")
        let entries = try await sandbox.history()
        #expect(entries.map(\.preview) == ["repeated", "in between"])
        let details = try await sandbox.succeed(["show", "--json", String(entries[0].id)])
        let object = try #require(try JSONSerialization.jsonObject(with: details.stdout) as? [String: Any])
        #expect((object["copyCount"] as? NSNumber)?.intValue == 2)
    }

    @Test func restorePutsAnOlderItemBack() async throws {
        let older = Data("older\r\nvalue with ünïcödé\u{0}".utf8)
        try await sandbox.copy(older)
        try await sandbox.copy("newer value")
        let olderID = try #require(try await sandbox.history().last?.id)
        let restore = try await sandbox.run(["restore", String(olderID)])
        #expect(restore.status == 0, "\(restore)")
        #expect(try await sandbox.paste() == older)
        let entries = try await sandbox.history()
        #expect(entries.first?.id == olderID)
        #expect(entries.count == 2)
    }

    @Test func restoreOfAnImageKeepsItsBytes() async throws {
        try await sandbox.copy(Payloads.png)
        try await sandbox.copy("text on top")
        let imageID = try #require(try await sandbox.history(["--type", "image"]).first?.id)
        try await sandbox.succeed(["restore", String(imageID)])
        #expect(try await sandbox.paste(["--type", "png"]) == Payloads.png)
        let missing = try await sandbox.run(["restore", "777"])
        #expect(missing.status == 1)
        #expect(missing.errorLines == ["Error: No history item with id 777."])
    }

    // MARK: - decode

    @Test func decodeWritesThePickedItem() async throws {
        let payload = Data("picked\tvalue\nwith lines\n".utf8)
        try await sandbox.copy(payload)
        try await sandbox.copy("the newest")
        let menu = try await sandbox.succeed(["history", "--format", "dmenu"])
        #expect(menu.outputLines.count == 2)
        let newestLine = Data((menu.outputLines[0] + "\n").utf8)
        #expect(try await sandbox.succeed(["decode"], stdin: newestLine).stdout == Data("the newest".utf8))
        let olderLine = Data((menu.outputLines[1] + "\n").utf8)
        #expect(try await sandbox.succeed(["decode"], stdin: olderLine).stdout == payload)
        #expect(try await sandbox.succeed(["decode", menu.outputLines[1]]).stdout == payload)
    }

    @Test func decodeWritesImageBytes() async throws {
        try await sandbox.copy(Payloads.png)
        let menu = try await sandbox.succeed(["history", "--format", "dmenu"])
        let line = try #require(menu.outputLines.first)
        #expect(try await sandbox.succeed(["decode"], stdin: Data(line.utf8)).stdout == Payloads.png)
    }

    /// A browser's "Copy image" holds HTML and a link besides the picture, and no plain text: the picture is what
    /// decode and paste write, and with plain text beside it, the plain text.
    @Test func decodePrefersThePictureOverTheHTMLWrappingIt() async throws {
        let png = Payloads.png.base64EncodedString()
        let lines = """
            {"representations":[{"type":"text/html","text":"<img src=\\"a.png\\">"},{"type":"public.png","base64":"\(png)"}]}
            {"representations":[{"type":"text/html","text":"<b>x</b>"},{"type":"public.png","base64":"\(png)"},{"type":"public.utf8-plain-text","text":"x"}]}

            """
        try await sandbox.succeed(["import", "-"], stdin: Data(lines.utf8))
        let menu = try await sandbox.succeed(["history", "--format", "dmenu"])
        #expect(menu.outputLines.count == 2, "\(menu)")
        #expect(try await sandbox.succeed(["decode", menu.outputLines[1]]).stdout == Payloads.png)
        #expect(try await sandbox.succeed(["decode", menu.outputLines[0]]).stdout == Data("x".utf8))
    }

    @Test(arguments: ["not an id\tpreview\n", "\n", "", "12abc\tx\n"])
    func decodeOfGarbageFailsClearly(line: String) async throws {
        try await sandbox.copy("something")
        let result = try await sandbox.run(["decode"], stdin: Data(line.utf8))
        #expect(result.status == 1 || result.status == 64, "\(result)")
        #expect(!result.wasSignalled)
        #expect(result.stdout.isEmpty)
        let first = try #require(result.errorLines.first)
        #expect(first.hasPrefix("Error: "))
        #expect(first.contains("Nothing to decode") || first.contains("is not an item id"), "\(result)")
    }

    @Test func decodeOfAnUnknownIDFails() async throws {
        let result = try await sandbox.run(["decode"], stdin: Data("31337\tghost\n".utf8))
        #expect(result.status == 1)
        #expect(result.errorLines == ["Error: No history item with id 31337."])
    }

    /// Issue 27, finding 10: C1 controls, bidirectional overrides and zero-width characters reached the terminal or
    /// the launcher raw through every listing; they are escaped as `pb show` and `pb pick` escape them. A zero-width
    /// joiner inside an emoji stays.
    @Test func everyListingEscapesC1BidiAndZeroWidthCharacters() async throws {
        let hostile = "csi\u{9B}31m osc\u{9D}0;t\u{7} rtl\u{202E}txt.exe iso\u{2066}x\u{2069} "
            + "zw\u{200B}sp\u{200F}\u{2060}\u{FEFF}end"
        let family = "👨\u{200D}👩\u{200D}👧"
        try await sandbox.copy(hostile + " " + family)
        let hidden: [Unicode.Scalar] = ["\u{9B}", "\u{9D}", "\u{7}", "\u{202E}", "\u{2066}", "\u{2069}", "\u{200B}",
            "\u{200F}", "\u{2060}", "\u{FEFF}"]
        let listings: [[String]] = [
            ["history"], ["history", "--format", "dmenu"], ["history", "--json"], ["search", "csi"],
            ["search", "--format", "dmenu", "rtl"], ["search", "--json", "zw"], ["show", "1"],
        ]
        for arguments in listings {
            let result = try await sandbox.succeed(arguments)
            let text = result.output
            for scalar in hidden {
                #expect(!text.unicodeScalars.contains(scalar), "\(arguments): U+\(String(scalar.value, radix: 16)) raw")
            }
            // JSON writes the backslash of an escape as two.
            let escape = arguments.contains("--json") ? #"\\u{"# : #"\u{"#
            for name in ["9b", "9d", "202e", "2066", "2069", "200b", "200f", "2060", "feff"] {
                #expect(text.contains(escape + name + "}"), "\(arguments) shows U+\(name) escaped: \(text)")
            }
            #expect(text.contains(family), "\(arguments) keeps the emoji whole: \(text)")
        }
    }
}
