import Foundation
import PasteboardConfiguration
import PasteboardModel
import Testing

/// Limits for one kind of item (`max-age.image = 7d`), beside the limits for all.
@Suite struct KindRetentionTests {
    @Test func kindLimitsAreReadBesideTheOthers() throws {
        let text = """
            max-age = 90d
            max-age.image = 7d      # screenshots go after a week
            max-items.text = 1000
            max-bytes.file = 500M
            """
        let retention = try Configuration.parse(text, path: "config").retention
        #expect(retention.maxAge == TimeInterval(90 * 86400))
        #expect(retention.byKind["image"] == RetentionPolicy(maxAge: TimeInterval(7 * 86400)))
        #expect(retention.byKind["text"] == RetentionPolicy(maxItems: 1000))
        #expect(retention.byKind["file"] == RetentionPolicy(maxBytes: 500 << 20))
        #expect(retention.byKind.count == 3)
        #expect(!retention.isUnlimited)
        #expect(!RetentionPolicy(byKind: ["image": RetentionPolicy(maxAge: 1)]).isUnlimited)
        #expect(RetentionPolicy(byKind: ["image": RetentionPolicy()]).isUnlimited)
    }

    @Test(arguments: [
        ("max-age.image = forever",
         "max-age.image: a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years."),
        ("max-age.image = 7", "max-age.image: a duration needs a unit: 30s, 5m, 2h, 7d or 4w."),
        ("max-items.text = 0",
         "max-items.text needs a whole number of at least 1 (pinned items are always kept). To keep no history at all, stop the daemon instead."),
        ("max-bytes.file = big", "max-bytes.file needs a size like 500M or 2G."),
        ("max-age.imag = 7d",
         "'max-age.imag': 'imag' is not a kind of item. Did you mean 'max-age.image'? The kinds are: text, url, html, image, file, data."),
        ("max-age. = 7d", "'max-age.': '' is not a kind of item. The kinds are: text, url, html, image, file, data."),
    ])
    func badKindLimitsNameTheFileAndLine(line: String, message: String) {
        #expect {
            try Configuration.parse("max-items = 5\n\(line)\n", path: "config")
        } throws: { error in
            (error as? ConfigurationError)?.message == "config:2: \(message)"
        }
    }

    @Test func theKindsAreTheHistorysKinds() {
        #expect(RetentionPolicy.kinds == ["text", "url", "html", "image", "file", "data"])
    }
}
