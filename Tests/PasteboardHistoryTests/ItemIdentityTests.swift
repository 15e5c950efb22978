import Foundation
import PasteboardModel
import PasteboardTestSupport
import Testing

@testable import PasteboardHistory

@Suite struct ItemIdentityTests {
    /// The identity of `item` as `record(_:)` computes it.
    func identity(_ item: PasteboardItem) -> Data {
        ItemIdentity.of(item, addresses: item.representations.map { SHA256.address($0.data) })
    }

    /// The formula every store before the volatile-content table used, written out again here: SHA-256 over each
    /// type's identifier, a zero byte and the content address, in identifier order, cut to 16 bytes.
    func formerIdentity(_ item: PasteboardItem) -> Data {
        var hasher = SHA256()
        let parts = item.representations.map { ($0.type.identifier, SHA256.address($0.data)) }
        for (identifier, address) in parts.sorted(by: { $0.0 < $1.0 }) {
            hasher.update(Data(identifier.utf8))
            hasher.update(Data([0]))
            hasher.update(address)
        }
        return hasher.finalize(byteCount: 16)
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    // MARK: - Ordinary items keep their identity

    /// Identities computed outside Swift (Python's hashlib, with the former formula): what stores and sync hold.
    @Test(arguments: [
        ([(ContentType.utf8PlainText, "hello")], "d9e98bad747ee69f613c8f82da7945e6"),
        ([(.html, "<p>Hello <b>there</b></p>"), (.utf8PlainText, "Hello there")], "29ab34f7142bbcbbf9d630ade59120ba"),
        (
            [(.rtf, #"{\rtf1\ansi Hello {\b there}}"#), (.utf8PlainText, "Hello there")],
            "84aa7184acc7abd066889a7211204b01"
        ),
    ])
    func ordinaryItemsKeepTheirFormerIdentityBitForBit(_ parts: [(ContentType, String)], _ expected: String) {
        let item = PasteboardItem(parts.map { .init(type: $0.0, data: Data($0.1.utf8)) })
        #expect(Self.hex(identity(item)) == expected)
        #expect(Self.hex(HistoryStore.syncIdentity(of: item)) == expected)
    }

    /// Items of every sort that hold no volatile type or field, listed types included (HTML without LibreOffice's
    /// temporary paths, RTF without its bookmarks): the identity is the former one.
    @Test func itemsWithoutVolatileContentHaveTheFormerIdentity() throws {
        let firefoxHTML =
            #"<meta charset="utf-8"><img src="file:///tmp/photo.png"><a href="https://example.com/lu1.tmp/lu2_x">x</a>"#
        let items: [PasteboardItem] = [
            PasteboardItem(string: "plain"),
            PasteboardItem(data: Data(), type: .utf8PlainText),
            htmlItem(firefoxHTML, plain: "x"),
            PasteboardItem([.init(type: .rtf, data: Data(#"{\rtf1 {\*\bkmkstart mine}text}"#.utf8))]),
            pngItem(count: 100_000, seed: 7),
            PasteboardItem([
                .init(type: ContentType("com.example.profile"), data: Data([1, 2, 3])),
                .init(
                    type: try #require(ContentType(mimeType: "application/x-openoffice-objectdescriptor-xml")),
                    data: Data([9])),
                .init(type: .uriList, data: Data("file:///home/a.txt\r\n".utf8)),
            ]),
        ]
        for item in items {
            #expect(identity(item) == formerIdentity(item), "\(item.types)")
        }
    }

    // MARK: - LibreOffice

    @Test func writerCopiesOfTheSameSelectionHaveOneIdentity() throws {
        let copies = try (1...3).map(LibreOfficeSamples.writerItem)
        // They differ in every volatile type...
        #expect(Set(copies.map(formerIdentity)).count == 3)
        // ...and are one item.
        #expect(Set(copies.map(identity)).count == 1)
    }

    @Test func anEditedWriterSelectionIsAnotherItem() throws {
        #expect(identity(try LibreOfficeSamples.writerItem(4)) != identity(try LibreOfficeSamples.writerItem(3)))
    }

    @Test func calcCopiesOfTheSameRangeHaveOneIdentity() throws {
        let first = try LibreOfficeSamples.calcItem(1)
        let second = try LibreOfficeSamples.calcItem(2)
        #expect(formerIdentity(first) != formerIdentity(second))
        #expect(identity(first) == identity(second))
    }

    @Test func eachVolatileTypeAloneIsSeenPast() throws {
        // Copy 1 had no bookmark yet; copy 3 has two, from the link target read after copies 1 and 2.
        let pairs: [(ContentType, String, String)] = [
            (try LibreOfficeSamples.type(LibreOfficeSamples.embedSource), "writer-1.zip", "writer-3.zip"),
            (try LibreOfficeSamples.type(LibreOfficeSamples.embedSource), "calc-1.zip", "calc-2.zip"),
            (.rtf, "writer-1.rtf", "writer-3.rtf"),
            (.html, "writer-1.html", "writer-3.html"),
            (try LibreOfficeSamples.type(LibreOfficeSamples.link), "writer-1.link", "writer-3.link"),
        ]
        for (type, first, second) in pairs {
            let one = PasteboardItem([.init(type: type, data: try LibreOfficeSamples.bytes(first))])
            let other = PasteboardItem([.init(type: type, data: try LibreOfficeSamples.bytes(second))])
            #expect(one != other, "\(first)")
            #expect(identity(one) == identity(other), "\(first) and \(second)")
        }
    }

    @Test func bookmarksLeftOutGiveTheBytesOfTheCopyWithoutThem() throws {
        // Copy 1 has no bookmark: its RTF's own address is what copy 3's normalised RTF hashes to.
        let first = Array(try LibreOfficeSamples.bytes("writer-1.rtf"))
        let third = Array(try LibreOfficeSamples.bytes("writer-3.rtf"))
        #expect(VolatileField.rtfDDELinkBookmarks.address(of: first) == nil)
        #expect(VolatileField.rtfDDELinkBookmarks.address(of: third) == SHA256.address(Data(first)))
    }

    @Test func editedContentInsideTheZipIsSeen() throws {
        let field = VolatileField.openDocumentPackage
        let first = try #require(field.address(of: Array(try LibreOfficeSamples.bytes("writer-1.zip"))))
        let edited = try #require(field.address(of: Array(try LibreOfficeSamples.bytes("writer-4.zip"))))
        #expect(first != edited)
        #expect(field.address(of: Array(try LibreOfficeSamples.bytes("calc-1.zip"))) != first)
    }

    @Test func damagedZipIsIdentifiedByItsBytes() throws {
        var zip = Array(try LibreOfficeSamples.bytes("writer-1.zip"))
        #expect(VolatileField.openDocumentPackage.address(of: Array(zip.prefix(zip.count / 2))) == nil)
        zip[zip.count / 2] ^= 0xFF  // inside a deflated member
        #expect(VolatileField.openDocumentPackage.address(of: zip) == nil)
        #expect(VolatileField.openDocumentPackage.address(of: Array("not a zip".utf8)) == nil)
        let item = PasteboardItem([
            .init(type: try LibreOfficeSamples.type(LibreOfficeSamples.embedSource), data: Data(zip))
        ])
        #expect(identity(item) == formerIdentity(item))
    }

    @Test func temporaryPathsOfOtherShapesAreLeftAlone() {
        for html in [
            #"<img src="file:///tmp/lu123.tmp/picture.png">"#,  // not LibreOffice's file name
            #"<img src="file:///tmp/photos/lu123_tmp_1.png">"#,  // not in its temporary directory
            #"<img src="https://example.com/lu1.tmp/lu2_tmp_3.png">"#,  // not a file URL
        ] {
            #expect(VolatileField.libreOfficeTemporaryPaths.address(of: Array(html.utf8)) == nil, "\(html)")
        }
        let elsewhere =
            #"<img src="file:///var/tmp/lu9z.tmp/lu9zq_tmp_abc.png"><img src='file:///tmp/lu1.tmp/lu2_tmp_abc.png'>"#
        let moved = #"<img src="file:///h/lu7.tmp/lu7b_tmp_abc.png"><img src='file:///tmp/lu5.tmp/lu6_tmp_abc.png'>"#
        #expect(
            VolatileField.libreOfficeTemporaryPaths.address(of: Array(elsewhere.utf8))
                == VolatileField.libreOfficeTemporaryPaths.address(of: Array(moved.utf8)))
        let otherPicture =
            #"<img src="file:///tmp/lu9z.tmp/lu9zq_tmp_abd.png"><img src='file:///tmp/lu1.tmp/lu2_tmp_abc.png'>"#
        #expect(
            VolatileField.libreOfficeTemporaryPaths.address(of: Array(otherPicture.utf8))
                != VolatileField.libreOfficeTemporaryPaths.address(of: Array(moved.utf8)))
    }

    // MARK: - Types left out

    @Test func aProcessIDInATypeNameIsLeftOut() throws {
        func copy(pid: Int) throws -> PasteboardItem {
            PasteboardItem([
                .init(type: .utf8PlainText, data: Data("same".utf8)),
                .init(
                    type: try #require(ContentType(mimeType: "application/x-libreoffice-internal-id-\(pid)")),
                    data: Data()),
            ])
        }
        #expect(identity(try copy(pid: 4242)) == identity(try copy(pid: 977)))
        // The text alone: the left-out type adds nothing.
        #expect(identity(try copy(pid: 4242)) == formerIdentity(PasteboardItem(string: "same")))
    }

    @Test func anItemOfLeftOutTypesOnlyKeepsThem() throws {
        let one = PasteboardItem([
            .init(type: try #require(ContentType(mimeType: "application/x-copyq-owner")), data: Data("a".utf8))
        ])
        let other = PasteboardItem([
            .init(type: try #require(ContentType(mimeType: "application/x-copyq-owner")), data: Data("b".utf8))
        ])
        #expect(identity(one) == formerIdentity(one))
        #expect(identity(one) != identity(other))
    }

    @Test(arguments: [
        "dyn.mime.application/x-openoffice-embed-source-xml",
        #"dyn.mime.application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#,
        "dyn.mime.Application/X-OpenOffice-Embed-Source-XML",
    ])
    func typesMatchWithoutParametersOrCase(_ identifier: String) {
        #expect(VolatileContent.treatment(of: ContentType(identifier)) == .normalised(.openDocumentPackage))
    }

    @Test func unlistedTypesAreNotVolatile() throws {
        for type in [
            ContentType.utf8PlainText, .png, .uriList, ContentType("com.example.html"),
            try #require(ContentType(mimeType: "text/rtf-x")),
        ] {
            #expect(VolatileContent.treatment(of: type) == nil, "\(type)")
        }
        #expect(
            VolatileContent.treatment(
                of: try #require(ContentType(mimeType: "application/x-libreoffice-internal-id-12"))) == .excluded)
    }

    // MARK: - Bounds

    @Test func representationsAboveTheSizeLimitAreNotRead() throws {
        // Two large HTML payloads that differ only in a temporary path: past the limit, their bytes decide.
        let padding = String(repeating: "x", count: VolatileContent.normalisedSizeLimit)
        let one = htmlItem(#"<img src="file:///tmp/lu1.tmp/lu2_tmp_a.png">"# + padding, plain: "p")
        let other = htmlItem(#"<img src="file:///tmp/lu1.tmp/lu3_tmp_a.png">"# + padding, plain: "p")
        #expect(identity(one) != identity(other))
        let small = htmlItem(#"<img src="file:///tmp/lu1.tmp/lu2_tmp_a.png">"#, plain: "p")
        let smallOther = htmlItem(#"<img src="file:///tmp/lu1.tmp/lu3_tmp_a.png">"#, plain: "p")
        #expect(identity(small) == identity(smallOther))
        // Never asked for bytes past the limit.
        var identity = ItemIdentity()
        identity.add(.html, address: Data(count: 16), size: VolatileContent.normalisedSizeLimit + 1) {
            Issue.record("read a representation past the limit")
            return nil
        }
        identity.add(.png, address: Data(count: 16), size: 10) {
            Issue.record("read a representation of an unlisted type")
            return nil
        }
    }

    @Test func zipMembersPastThePackageLimitAreNotInflated() throws {
        // A stored member that claims 65 MiB: refused before anything is read or allocated for it.
        var zip: [UInt8] = []
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }
        let name = Array("big".utf8)
        let claimed = VolatileField.packageLimit + 1
        zip += le32(0x0403_4b50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(3) + le32(claimed)
        zip += le16(name.count) + le16(0) + name + Array("abc".utf8)
        let directory = zip.count
        zip += le32(0x0201_4b50) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(3)
        zip += le32(claimed) + le16(name.count) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0) + name
        let directorySize = zip.count - directory
        zip +=
            le32(0x0605_4b50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(directorySize) + le32(directory) + le16(0)
        var seen = 0
        #expect(!ZipArchive.forEachMember(of: zip, limit: VolatileField.packageLimit) { _, _ in seen += 1 })
        #expect(seen == 0)
        // With a limit above its claim: refused too, since it holds 3 bytes, not 64 MiB.
        #expect(ZipArchive.forEachMember(of: zip, limit: claimed) { _, _ in seen += 1 } == false)
    }
}
