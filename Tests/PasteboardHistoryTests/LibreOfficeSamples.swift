import Foundation
import PasteboardModel
import Testing

/// Real copies made by LibreOffice 7.4, kept in `Tests/Fixtures/LibreOffice` (its README says how they were made):
/// three copies of the same Writer selection, a fourth after an edit, and two copies of the same Calc range.
enum LibreOfficeSamples {
    /// The MIME types (as X11 targets) LibreOffice offers them under.
    static let embedSource = #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#
    static let link = #"application/x-openoffice-link;windows_formatname="Link""#
    static let writerDescriptor =
        #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
        + #"classname="8BC6B165-B1B2-4EDD-aa47-dae2ee689dd6";typename="LibreOffice 7.4 Text Document";"#
        + #"displayname="file:///srv/d1/note.fodt";viewaspect="1";width="17000";height="3000";posx="0";posy="0""#
    static let calcDescriptor =
        #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
        + #"classname="47BBB4CB-CE4C-4E80-a591-42d9ae74950f";typename="LibreOffice 7.4 Spreadsheet";"#
        + #"displayname="file:///srv/d1/sheet.fods";viewaspect="1";width="4517";height="1356";posx="0";posy="0""#

    /// The fixture directory: `Tests/PasteboardHistoryTests/LibreOfficeSamples.swift` → `Tests/Fixtures/LibreOffice`.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/LibreOffice", isDirectory: true)

    /// The bytes of one sample file.
    static func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The content type stored for an X11 target.
    static func type(_ target: String) throws -> ContentType {
        try #require(ContentType(x11Target: target))
    }

    /// Writer's copy `number` (1 to 4) as the capture records it: the text first, then every other type in
    /// LibreOffice's order.
    static func writerCopy(_ number: Int) throws -> PasteboardItem {
        PasteboardItem([
            .init(type: .utf8PlainText, data: try bytes(number == 4 ? "writer-4.txt" : "writer-1-3.txt")),
            .init(type: try type(embedSource), data: try bytes("writer-\(number).zip")),
            .init(type: .rtf, data: try bytes("writer-\(number).rtf")),
            .init(type: .html, data: try bytes("writer-\(number).html")),
            .init(type: try type(link), data: try bytes("writer-\(number).link")),
            .init(type: try type(writerDescriptor), data: try bytes("writer.objectdescriptor")),
        ])
    }

    /// Calc's copy `number` (1 or 2): the text, LibreOffice's own copy, HTML and the descriptor.
    static func calcCopy(_ number: Int) throws -> PasteboardItem {
        PasteboardItem([
            .init(type: .utf8PlainText, data: try bytes("calc.txt")),
            .init(type: try type(embedSource), data: try bytes("calc-\(number).zip")),
            .init(type: try type(calcDescriptor), data: try bytes("calc.objectdescriptor")),
            .init(type: .html, data: try bytes("calc.html")),
        ])
    }
}
