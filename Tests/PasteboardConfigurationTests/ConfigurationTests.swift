import Foundation
import PasteboardConfiguration
import PasteboardModel
import Testing

/// The configuration file: each setting, its units, and mistakes named by file and line.
@Suite struct ConfigurationTests {
    @Test func everySettingIsRead() throws {
        let text = """
            # retention
            max-items = 500
            max-bytes = 2G
            max-age = 30d   # a month
            ignore-app = KeePassXC
            ignore-type = image/*
            ignore-text = ^\\d{6}$
            max-item-size = 50M
            primary = on
            """
        let configuration = try Configuration.parse(text, path: "config")
        #expect(configuration.retention.maxItems == 500)
        #expect(configuration.retention.maxBytes == 2 << 30)
        #expect(configuration.retention.maxAge == TimeInterval(30 * 86400))
        #expect(configuration.capture.ignoredApplications == ["KeePassXC"])
        #expect(configuration.capture.ignoredTypes == ["image/*"])
        #expect(configuration.capture.ignoredText.map(\.pattern) == [#"^\d{6}$"#])
        #expect(configuration.capture.maxItemBytes == 50 << 20)
        #expect(configuration.capture.capturesPrimary)
    }

    @Test func allowPasteRulesMarkCopiesByApplicationOrType() throws {
        let text = """
            ask-app = KeePassXC
            ask-type = image/*
            ask-timeout = 5s
            """
        let rules = try Configuration.parse(text, path: "config").pasteApproval
        #expect(rules.timeout == 5)
        #expect(Configuration().pasteApproval.timeout == 30)
        #expect(rules.asks(PasteboardItem(string: "password"), application: "keepassxc"))
        #expect(!rules.asks(PasteboardItem(string: "note"), application: "gedit"))
        #expect(rules.asks(PasteboardItem(data: Data([0x89, 0x50]), type: .png), application: nil))
    }

    @Test(arguments: [
        ("max-items = lots", 1, "max-items needs a whole number of at least 1 (pinned items are always kept). To keep no history at all, stop the daemon instead."),
        ("\n\nmax-itmes = 5", 3, "unknown setting 'max-itmes'. Did you mean 'max-items'? The settings are: " + Configuration.keys.joined(separator: ", ") + "."),
        ("ignore-text = (", 1, "ignore-text: Invalid regular expression at column 1: unmatched '('; add a ')' to close the group. Pattern: \"(\""),
        ("primary = maybe", 1, "primary needs on or off."),
        ("max-bytes = 1e30G", 1, "max-bytes needs a size like 500M or 2G."),
        ("just words", 1, "expected 'key = value', found 'just words'."),
        ("ignore-app =", 1, "expected 'key = value', found 'ignore-app ='."),
        ("ask-type = nonsense", 1, "ask-type 'nonsense' is not a known type. Give a MIME type (text/html), a MIME prefix (image/*), an identifier (public.png) or an extension (png)."),
        ("ask-timeout = 0.5s", 1, "ask-timeout needs a duration from 1s to 10m, like 30s."),
        ("ask-timeout = 11m", 1, "ask-timeout needs a duration from 1s to 10m, like 30s."),
        ("take-over-delay = 6s", 1, "take-over-delay needs a duration from 0 to 5s, like 300ms."),
        ("take-over-delay = soon", 1, "take-over-delay needs a duration from 0 to 5s, like 300ms."),
        ("take-over-delay = -1s", 1, "take-over-delay needs a duration from 0 to 5s, like 300ms."),
        ("ocr = sometimes", 1, "ocr needs on or off."),
        ("ocr-languages = eng deu", 1, "ocr-languages needs Tesseract's language names joined by '+', like eng+deu (each one's data is the tesseract-ocr-LANG package)."),
        ("ocr-languages = eng++deu", 1, "ocr-languages needs Tesseract's language names joined by '+', like eng+deu (each one's data is the tesseract-ocr-LANG package)."),
    ])
    func aMistakeNamesTheFileAndLine(text: String, line: Int, problem: String) {
        let error = #expect(throws: ConfigurationError.self) { try Configuration.parse(text, path: "/home/u/.config/pasteboard/config") }
        #expect(error?.line == line)
        #expect(error?.problem == problem)
        #expect(error?.message == "/home/u/.config/pasteboard/config:\(line): \(problem)")
    }

    @Test func textRecognitionIsOnInEnglishUnlessTheFileSaysOtherwise() throws {
        let defaults = try Configuration.parse("", path: "config")
        #expect(defaults.textRecognition.isEnabled && defaults.textRecognition.languages == "eng")
        let set = try Configuration.parse("ocr = off\nocr-languages = eng+deu+chi_sim\n", path: "config")
        #expect(!set.textRecognition.isEnabled && set.textRecognition.languages == "eng+deu+chi_sim")
    }

    @Test func aMissingFileMeansTheDefaults() throws {
        let configuration = try Configuration.load(environment: ["PB_CONFIG": "/nonexistent/pasteboard/config"])
        #expect(configuration.retention.isUnlimited && !configuration.capture.capturesPrimary)
    }

    @Test func anUnreadableFileIsAnErrorNotTheDefaults() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pb-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = directory.appendingPathComponent("config")
        try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: binary)
        let error = #expect(throws: ConfigurationError.self) { try Configuration.load(environment: ["PB_CONFIG": binary.path]) }
        #expect(error?.message == "\(binary.path): is not UTF-8 text.")
        try Data(count: Configuration.maxFileBytes + 1).write(to: binary)
        #expect(throws: ConfigurationError.self) { try Configuration.load(environment: ["PB_CONFIG": binary.path]) }
    }

    @Test func thePathFollowsTheEnvironment() {
        #expect(Configuration.path(environment: ["PB_CONFIG": "/etc/pb"]) == "/etc/pb")
        #expect(Configuration.path(environment: ["XDG_CONFIG_HOME": "/x"]) == "/x/pasteboard/config")
        #expect(Configuration.path(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/home/u"]) == "/home/u/.config/pasteboard/config")
    }

    @Test func rulesRejectWhatTheySay() throws {
        let rules = try Configuration.parse("ignore-app = keepassxc\nignore-type = html\nignore-text = secret\n", path: "c").capture
        #expect(rules.rejection(ofApplication: "KeePassXC") == "application KeePassXC is ignored")
        #expect(rules.rejection(ofApplication: nil) == nil)
        var html = PasteboardItem(string: "page")
        html.setData(Data("<p>page</p>".utf8), forType: .html)
        #expect(rules.rejection(of: html, application: nil) == "type public.html is ignored")
        #expect(rules.rejection(of: PasteboardItem(string: "a secret"), application: nil) == "text matches an ignore-text rule")
        #expect(rules.rejection(of: PasteboardItem(string: "fine"), application: "Gedit") == nil)
    }

    @Test func dropTypeLeavesOutOnlyTheRepresentationsItNames() throws {
        let rules = try Configuration.parse(
            "drop-type = chromium/x-internal-source-rfh-token\ndrop-type = image/*\n", path: "c"
        ).capture
        #expect(rules.droppedTypes == ["chromium/x-internal-source-rfh-token", "image/*"])
        var item = PasteboardItem(string: "copied")
        item.setData(Data([1]), forType: ContentType(mimeType: "chromium/x-internal-source-rfh-token")!)
        item.setData(Data([0x89]), forType: .png)
        #expect(rules.keepingWanted(of: item).types == [.utf8PlainText])
        #expect(rules.rejection(of: item, application: nil) == nil, "dropping is not ignoring")
        #expect(throws: ConfigurationError.self) { try Configuration.parse("drop-type = not a type\n", path: "c") }
    }

    /// Names kept verbatim (`text/plain;charset=utf-16`, LibreOffice's `;windows_formatname="…"`) match a rule by
    /// what they mean: `text/plain` covers every plain text, a MIME type without parameters every spelling of it
    /// with parameters, and a rule for Firefox's `text/_moz_htmlcontext` names that type alone.
    @Test func typeRulesMatchNamesKeptVerbatimByWhatTheyMean() throws {
        let embed = ContentType(
            offeredName: #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#)!
        let utf16 = ContentType(offeredName: "text/plain;charset=UTF-16")!
        let context = ContentType(offeredName: "text/_moz_htmlcontext")!
        let html = ContentType(offeredName: "text/html;charset=utf-8")!
        #expect(utf16.isDynamic && embed.isDynamic && html.isDynamic)
        let cases: [(rule: String, dropped: [ContentType])] = [
            ("text/plain", [.utf8PlainText, .plainText, utf16]),
            ("text/plain;charset=utf-16", [utf16]),
            ("application/x-openoffice-embed-source-xml", [embed]),
            ("text/_moz_htmlcontext", [context]),
            ("text/html", [html]),
            ("text/*", [.utf8PlainText, .plainText, utf16, context, html]),
        ]
        let all: [ContentType] = [.utf8PlainText, .plainText, utf16, embed, context, html]
        for (rule, dropped) in cases {
            let rules = try Configuration.parse("drop-type = \(rule)\n", path: "c").capture
            #expect(all.filter(rules.drops) == dropped, "drop-type = \(rule)")
        }
    }

    @Test(arguments: [("500K", 500 << 10), ("2g", 2 << 30), ("1MiB", 1 << 20), ("10 kb", 10_000), ("42", 42)])
    func sizes(text: String, bytes: Int) { #expect(Units.bytes(text) == bytes) }

    @Test(arguments: ["-1", "1e30G", "inf k", "lots", ""])
    func notSizes(text: String) { #expect(Units.bytes(text) == nil) }

    @Test(arguments: [("30s", 30.0), ("5m", 300), ("2h", 7200), ("7d", 604_800), ("1w", 604_800), ("250ms", 0.25),
        ("36500d", 3_153_600_000)])
    func durations(text: String, seconds: Double) { #expect(Units.duration(text) == seconds) }

    /// Longer than 100 years is absurd, and could put an expiry past the year 9999, which cannot be exported.
    @Test(arguments: ["0s", "-5m", "1e308w", "soon", "36501d", "1e12s", "5300w"])
    func notDurations(text: String) { #expect(Units.duration(text) == nil) }
}
