import Foundation
import PasteboardHistory
import PasteboardModel
import PasteboardTestSupport
import Testing

/// `max-age.image = 7d` and its kind, through the real `pb` on a real store: `pb prune` honours the configuration's
/// limits per kind and `--kind`, keeps pinned items, and refuses bad values as it refuses the other keys'.
@Suite struct KindRetentionCommandTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Records an old image, an old text, a pinned old image and a new image straight into the sandbox's store.
    func recordAgedItems() throws -> (oldImage: Int64, oldText: Int64, pinnedImage: Int64, newImage: Int64) {
        let store = try HistoryStore(location: StoreLocation(directory: sandbox.storeDirectory))
        let day: TimeInterval = 86400
        func png(_ seed: UInt8) -> PasteboardItem {
            var data = Payloads.png
            data.append(contentsOf: [seed])  // bytes after IEND: a distinct item, still a PNG
            return PasteboardItem(data: data, type: .png)
        }
        let oldImage = try store.record(png(1), metadata: CaptureMetadata(date: Date() - 10 * day)).id
        let oldText = try store.record(PasteboardItem(string: "an old note"), metadata: CaptureMetadata(date: Date() - 30 * day)).id
        let pinnedImage = try store.record(png(2), metadata: CaptureMetadata(date: Date() - 20 * day)).id
        try store.setPinned(true, id: pinnedImage)
        let newImage = try store.record(png(3), metadata: CaptureMetadata(date: Date() - day)).id
        return (oldImage, oldText, pinnedImage, newImage)
    }

    @Test func pruneHonoursTheConfiguredAgeOfImages() async throws {
        let ids = try recordAgedItems()
        try sandbox.writeConfig("max-age = 90d\nmax-age.image = 7d   # screenshots\n")
        let result = try await sandbox.succeed(["prune"])
        #expect(result.outputLines == ["Deleted 1 item."], "\(result)")
        let left = try await sandbox.history()
        #expect(Set(left.map(\.id)) == [ids.oldText, ids.pinnedImage, ids.newImage])
        #expect(left.first { $0.id == ids.pinnedImage }?.kind == "image")
    }

    @Test func pruneWithAKindAppliesTheGivenLimitToThatKindOnly() async throws {
        let ids = try recordAgedItems()
        let result = try await sandbox.succeed(["prune", "--kind", "image", "--max-age", "12h"])
        #expect(result.outputLines == ["Deleted 2 items."], "\(result)")
        #expect(Set(try await sandbox.history().map(\.id)) == [ids.oldText, ids.pinnedImage])

        let bad = try await sandbox.run(["prune", "--kind", "picture", "--max-age", "1d"])
        #expect(bad.status == 64, "\(bad)")
        #expect(bad.errorLines.first == "Error: --kind needs a kind of item (text, url, html, image, file, data), not 'picture'.")
    }

    @Test(arguments: [
        ("max-age.image = soon",
         "max-age.image: a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years."),
        ("max-age.images = 7d",
         "'max-age.images': 'images' is not a kind of item. Did you mean 'max-age.image'? The kinds are: text, url, html, image, file, data."),
    ])
    func aBadKindLimitStopsPbWithTheFileAndLine(line: String, message: String) async throws {
        _ = try recordAgedItems()
        try sandbox.writeConfig("# retention\n\(line)\n")
        let result = try await sandbox.run(["prune"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: \(sandbox.configURL.path):2: \(message)"])
        #expect(try await sandbox.run(["history"]).status == 1)
    }
}
