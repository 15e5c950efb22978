import ClipboardBackend
import Foundation
import PasteboardModel
import Testing

/// Every type verbatim: what a capture reads of real applications' offers, what it keeps of what it read, and
/// under which names (and with which bytes) the item is offered again. No display needed.
@Suite struct VerbatimTypeTests {
    /// Firefox ESR's rich text copy on X11 (GTK 3 underneath).
    static let firefoxRichText = [
        "TIMESTAMP", "TARGETS", "MULTIPLE", "SAVE_TARGETS", "text/html", "text/_moz_htmlcontext", "text/_moz_htmlinfo",
        "UTF8_STRING", "COMPOUND_TEXT", "TEXT", "STRING", "text/plain;charset=utf-8", "text/plain",
        "text/x-moz-url-priv",
    ]

    static let embedSource = #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#
    static let objectDescriptor =
        #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";typename="LibreOffice 7.4 Text Document""#

    static let link = #"application/x-openoffice-link;windows_formatname="Link""#

    /// LibreOffice 7.4 Writer's text copy under Xvfb (the object descriptor abridged), with the UTF-16 text and
    /// the internal id other copies offer.
    static let libreOfficeText = [
        "text/plain;charset=utf-8", "text/plain;charset=UTF-8", "UTF-8", "UTF8_STRING", "COMPOUND_TEXT", "STRING",
        embedSource, "text/rtf", "text/richtext", "text/html", link, objectDescriptor, "MULTIPLE",
        "text/plain;charset=utf-16", "application/x-libreoffice-internal-id-4242",
    ]

    @Test func firefoxsRichTextReadsEveryTypeAndTheTextsAliasesLast() {
        #expect(
            TargetPlan.decide(Self.firefoxRichText)
                == .fetch([
                    "UTF8_STRING", "text/html", "text/_moz_htmlcontext", "text/_moz_htmlinfo", "text/x-moz-url-priv",
                    "text/plain;charset=utf-8", "text/plain",
                ]))
    }

    /// Every type under its own name, but the link: reading it makes Writer change the document (`VolatileMarkers`).
    @Test func libreOfficesTypesAreReadUnderTheirOwnNames() {
        #expect(
            TargetPlan.decide(Self.libreOfficeText)
                == .fetch([
                    "UTF8_STRING", "text/plain;charset=UTF-8", Self.embedSource, "text/rtf", "text/richtext",
                    "text/html", Self.objectDescriptor, "text/plain;charset=utf-16",
                    "application/x-libreoffice-internal-id-4242", "text/plain;charset=utf-8", "UTF-8",
                ]))
    }

    /// LibreOffice's `UTF-8` is its UTF-8 text under a name of its own: kept (with the same bytes) so that it is
    /// offered again.
    @Test func libreOfficesUTF8TargetIsKeptUnderItsName() throws {
        let item = TargetPlan.item(from: [
            ("UTF8_STRING", Self.text), ("text/plain;charset=UTF-8", Self.text), ("text/plain;charset=utf-8", Self.text),
            ("UTF-8", Self.text),
        ])
        let x11 = try #require(ContentType(verbatimName: "UTF-8"))
        #expect(x11.identifier == "dyn.x11.UTF-8")
        #expect(item.types == [.utf8PlainText, ContentType("dyn.mime.text/plain;charset=UTF-8"), x11])
        #expect(x11.canonicalType == .utf8PlainText && !x11.conforms(to: .plainText))
        #expect(ContentType.resolve("dyn.x11.UTF-8") == x11, "it reads back from an export")
        let served = TargetPlan.servedTargets(for: item).map(\.name)
        #expect(served.contains("UTF-8") && served.contains("text/plain;charset=UTF-8"), "\(served)")
    }

    /// An owner offering its text only as TEXT (compound text, or whatever its reply says): kept as plain text,
    /// and under TEXT with its bytes as they were.
    @Test func textOfferedOnlyAsTEXTKeepsItsName() {
        let compound = Data([0x47, 0xFC, 0x1B, 0x24, 0x28, 0x42, 0x40, 0x24, 0x1B, 0x28, 0x42])
        let item = TargetPlan.item(from: [("TEXT", compound)])
        #expect(item.types == [.plainText, ContentType("dyn.x11.TEXT")])
        let text = TargetPlan.servedTargets(for: item).first { $0.name == "TEXT" }
        #expect(text?.representation == 1 && text?.conversion == nil)
    }

    /// Offered name → the type kept → the name it is served under again.
    @Test(arguments: [
        ("image/png", "public.png", "image/png"),
        ("text/plain;charset=utf-16", "public.utf16-plain-text", "text/plain;charset=utf-16"),
        ("text/_moz_htmlcontext", "dyn.mime.text/_moz_htmlcontext", "text/_moz_htmlcontext"),
        (embedSource, "dyn.mime." + embedSource, embedSource),
        ("text/plain;charset=iso-8859-1", "dyn.mime.text/plain;charset=iso-8859-1", "text/plain;charset=iso-8859-1"),
        ("application/x-foo", "dyn.mime.application/x-foo", "application/x-foo"),
        ("com.example.profile", "com.example.profile", "com.example.profile"),
    ])
    func anOfferedNameIsKeptAndServedUnderItself(name: String, identifier: String, served: String) throws {
        let type = try #require(TargetPlan.contentType(forTarget: name))
        #expect(type.identifier == identifier)
        #expect(TargetPlan.targets(for: type).first == served)
        let item = TargetPlan.item(from: [(name, Data("bytes".utf8))])
        #expect(item.types == [type])
        let offered = TargetPlan.servedTargets(for: item)
        #expect(offered.first?.name == served && offered.first?.conversion == nil)
    }

    // MARK: - What is kept

    static let text = Data("Grüße, 世界".utf8)

    @Test func anAliasWithTheSameBytesIsNotKeptAndOneWithItsOwnBytesIs() {
        let escaped = Data("Gr\\u00fc\\u00dfe, \\u4e16\\u754c".utf8)
        let item = TargetPlan.item(from: [
            ("UTF8_STRING", Self.text), ("text/html", Data("<b>Grüße</b>".utf8)),
            ("text/plain;charset=utf-8", Self.text), ("text/plain", escaped),
        ])
        #expect(item.types == [.utf8PlainText, .html, .plainText])
        #expect(item.data(forType: .plainText) == escaped)
        #expect(item.string == "Grüße, 世界", "the item's text is still the UTF-8 text")
        let served = Dictionary(uniqueKeysWithValues: TargetPlan.servedTargets(for: item).map { ($0.name, $0) })
        #expect(served["text/plain"]?.representation == 2, "the application's own text/plain claims its name")
        #expect(served["text/plain;charset=utf-8"]?.representation == 0)
        #expect(served["UTF8_STRING"]?.representation == 0)
    }

    @Test func aUTF8AliasWithOtherBytesKeepsItsNameVerbatim() {
        let other = Data("other bytes".utf8)
        let item = TargetPlan.item(from: [("UTF8_STRING", Self.text), ("text/plain;charset=utf-8", other)])
        let verbatim = ContentType("dyn.mime.text/plain;charset=utf-8")
        #expect(item.types == [.utf8PlainText, verbatim])
        let served = TargetPlan.servedTargets(for: item)
        #expect(served.first { $0.name == "text/plain;charset=utf-8" }?.representation == 1)
        #expect(served.first { $0.name == "UTF8_STRING" }?.representation == 0)
    }

    @Test func aLargeTextsAliasesAreNotKeptNorRead() {
        let large = Data(repeating: UInt8(ascii: "a"), count: TargetPlan.aliasLimit + 1)
        let received: [(target: String, data: Data)] = [("UTF8_STRING", large)]
        #expect(!TargetPlan.reads("text/plain", after: received))
        #expect(TargetPlan.reads("text/html", after: received))
        #expect(TargetPlan.reads("text/plain", after: [("UTF8_STRING", Self.text)]))
        let item = TargetPlan.item(from: received + [("text/plain", Data("different".utf8))])
        #expect(item.types == [.utf8PlainText])
    }

    @Test func aPrimaryTextUnderAnotherSpellingIsTheTextAndKeepsItsName() {
        let item = TargetPlan.item(from: [("text/plain;charset=UTF-8", Self.text)])
        #expect(item.types == [.utf8PlainText, ContentType("dyn.mime.text/plain;charset=UTF-8")])
        #expect(item.string == "Grüße, 世界")
        #expect(TargetPlan.servedTargets(for: item).contains { $0.name == "text/plain;charset=UTF-8" })
    }

    @Test func latin1TextOfferedOnlyAsSTRINGIsKeptAsUTF8AndServedBackAsItWas() throws {
        let latin1 = Data([0x47, 0x72, 0xFC, 0xDF, 0x65, 0x0D, 0x0A, 0xA0, 0xFF])
        let item = TargetPlan.item(from: [("STRING", latin1)])
        #expect(item.types == [.utf8PlainText])
        #expect(item.string == "Grüße\r\n\u{A0}ÿ")
        let string = try #require(TargetPlan.servedTargets(for: item).first { $0.name == "STRING" })
        #expect(string.conversion?.apply(to: item.representations[0].data) == latin1)
    }

    @Test func emptyAnswersAreNotContent() {
        #expect(TargetPlan.item(from: [("UTF8_STRING", Data()), ("image/png", Data())]).isEmpty)
    }

    // MARK: - Serving

    @Test func theUTF8TextIsServedUnderEveryTextNameConverted() {
        let item = PasteboardItem(data: Self.text, type: .utf8PlainText)
        let served = TargetPlan.servedTargets(for: item)
        #expect(
            served.map(\.name) == [
                "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT", "COMPOUND_TEXT",
            ])
        #expect(served.map(\.conversion) == [nil, nil, nil, .latin1, .compoundText, .compoundText])
        #expect(served.compactMap(\.conversion?.replyType) == ["STRING", "COMPOUND_TEXT", "COMPOUND_TEXT"])
    }

    @Test func aStoredItemOfBeforeIsServedAsBefore() {
        let item = PasteboardItem([
            .init(type: .utf8PlainText, data: Self.text), .init(type: ContentType("dyn.mime.application/x-foo"), data: Data("x".utf8)),
        ])
        #expect(
            TargetPlan.servedTargets(for: item).map(\.name) == [
                "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT", "COMPOUND_TEXT",
                "application/x-foo",
            ])
    }

    // MARK: - X11's text encodings

    static let start: [UInt8] = [0x1B, 0x25, 0x47]
    static let end: [UInt8] = [0x1B, 0x25, 0x40]
    static let compoundTexts: [(String, [UInt8])] = [
        ("plain ASCII\n", Array("plain ASCII\n".utf8)),
        ("Grüße\r\n", [0x47, 0x72, 0xFC, 0xDF, 0x65, 0x0D, 0x0A]),
        ("a世界b", [0x61] + start + Array("世界".utf8) + end + [0x62]),
        ("∑", start + Array("∑".utf8) + end),
        ("é\u{85}é", [0xE9] + start + [0xC2, 0x85] + end + [0xE9]),
    ]

    @Test(arguments: compoundTexts)
    func compoundTextIsLatin1WithUTF8Segments(text: String, expected: [UInt8]) {
        #expect(Array(X11Text.compoundText(fromUTF8: Data(text.utf8))) == expected)
    }

    @Test func latin1ReplacesWhatItCannotHold() {
        #expect(Array(X11Text.latin1(fromUTF8: Data("Grüße 世\t".utf8))) == [0x47, 0x72, 0xFC, 0xDF, 0x65, 0x20, 0x3F, 0x09])
    }
}
