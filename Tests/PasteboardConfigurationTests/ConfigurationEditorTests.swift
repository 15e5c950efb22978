import Foundation
import PasteboardConfiguration
import PasteboardModel
import Testing

/// Editing the configuration file in place, as the settings window does.
@Suite struct ConfigurationEditorTests {
    static let original = """
        # my settings, by hand
        max-items = 500   # plenty

        ignore-app = KeePassXC
        some-future-key = kept as it is
        ignore-app = Bitwarden
        max-age = 90d
        """

    @Test func unchangedSettingsAndCommentsStayByteForByte() {
        var editor = ConfigurationEditor(text: Self.original)
        editor.set("max-items", to: "200")
        editor.set("max-age.image", to: "7d")
        #expect(editor.text == """
            # my settings, by hand
            max-items = 200  # plenty

            ignore-app = KeePassXC
            some-future-key = kept as it is
            ignore-app = Bitwarden
            max-age = 90d
            max-age.image = 7d

            """)
    }

    @Test func settingTheSameValuesChangesNothing() {
        var editor = ConfigurationEditor(text: Self.original)
        editor.set("ignore-app", to: ["KeePassXC", "Bitwarden"])
        editor.set("max-items", to: "500")
        editor.set("primary", to: nil)
        #expect(editor.text == Self.original)
    }

    @Test func aListReplacesEveryLineOfItsKeyAtTheFirst() {
        var editor = ConfigurationEditor(text: Self.original)
        #expect(editor.values(of: "ignore-app") == ["KeePassXC", "Bitwarden"])
        editor.set("ignore-app", to: ["1Password", "KeePassXC"])
        editor.set("max-age", to: nil)
        #expect(editor.text == """
            # my settings, by hand
            max-items = 500   # plenty

            ignore-app = 1Password
            ignore-app = KeePassXC
            some-future-key = kept as it is
            """)
        #expect(editor.value(of: "max-items") == "500")
    }

    @Test func saveWritesWhatPbReadsAndKeepsTheMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("pasteboard/config").path
        var editor = try ConfigurationEditor.load(path: path)
        #expect(editor.text == "")
        editor.set("max-age.image", to: "7d")
        let saved = try editor.save(to: path)
        #expect(saved.retention.byKind["image"]?.maxAge == TimeInterval(7 * 86400))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "max-age.image = 7d\n")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        #expect(try Configuration.load(environment: ["PB_CONFIG": path]).retention.byKind["image"]?.maxAge == TimeInterval(7 * 86400))

        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        var again = try ConfigurationEditor.load(path: path)
        again.set("max-items", to: "10")
        try again.save(to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "max-age.image = 7d\nmax-items = 10\n")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        // Nothing left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appendingPathComponent("pasteboard").path) == ["config"])
    }

    @Test(arguments: [
        ("max-age.image", "forever",
         "max-age.image: a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years."),
        ("ignore-text", "(unclosed", nil),
        ("max-items", "ten # or so", "max-items 'ten # or so': a value cannot hold '#' (it starts a comment) nor a line break."),
    ])
    func aBadValueWritesNothing(key: String, value: String, problem: String?) throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("config").path
        let original = Self.original.replacingOccurrences(of: "some-future-key = kept as it is", with: "primary = on")
        try Data(original.utf8).write(to: URL(fileURLWithPath: path))
        var editor = try ConfigurationEditor.load(path: path)
        editor.set(key, to: value)
        var message: String?
        do {
            try editor.save(to: path)
        } catch {
            message = error.message
        }
        let found = try #require(message)
        if let problem { #expect(found.hasSuffix(": " + problem), "\(found)") }
        #expect(found.hasPrefix(path + ":"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(original.utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["config"])
    }

    @Test func aLinkedFileIsReplacedWhereItIsAndTheLinkStays() throws {
        let directory = try TemporaryDirectory()
        let real = directory.url.appendingPathComponent("dotfiles-config").path
        let link = directory.url.appendingPathComponent("config").path
        try Data("max-items = 5\n".utf8).write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        var editor = try ConfigurationEditor.load(path: link)
        editor.set("max-items", to: "6")
        try editor.save(to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
        #expect(try String(contentsOfFile: real, encoding: .utf8) == "max-items = 6\n")
    }
}

/// A directory removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pb-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
