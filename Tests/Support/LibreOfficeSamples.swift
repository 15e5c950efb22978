public import Foundation

/// Real copies made by LibreOffice 7.4, kept in `Tests/Fixtures/LibreOffice` (its README says how they were made):
/// three copies of the same Writer selection, a fourth after an edit, and two copies of the same Calc range.
///
/// Each copy comes as the capture records it: the text first, then every other type in LibreOffice's order, each
/// named by the X11 target LibreOffice offers it under.
public enum LibreOfficeSamples {
    /// LibreOffice's own copy of the selection, an OpenDocument package.
    public static let embedSource =
        #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#
    /// A link to the selection (for DDE): the document and a bookmark.
    public static let link = #"application/x-openoffice-link;windows_formatname="Link""#
    public static let writerDescriptor =
        #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
        + #"classname="8BC6B165-B1B2-4EDD-aa47-dae2ee689dd6";typename="LibreOffice 7.4 Text Document";"#
        + #"displayname="file:///srv/d1/note.fodt";viewaspect="1";width="17000";height="3000";posx="0";posy="0""#
    public static let calcDescriptor =
        #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
        + #"classname="47BBB4CB-CE4C-4E80-a591-42d9ae74950f";typename="LibreOffice 7.4 Spreadsheet";"#
        + #"displayname="file:///srv/d1/sheet.fods";viewaspect="1";width="4517";height="1356";posx="0";posy="0""#

    /// The fixture directory: `Tests/Support/LibreOfficeSamples.swift` → `Tests/Fixtures/LibreOffice`.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/LibreOffice", isDirectory: true)

    /// The bytes of one sample file.
    public static func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Writer's copy `number` (1 to 4): (X11 target, bytes) in the order the capture records them.
    public static func writerCopy(_ number: Int) throws -> [(target: String, bytes: Data)] {
        [
            ("UTF8_STRING", try bytes(number == 4 ? "writer-4.txt" : "writer-1-3.txt")),
            (embedSource, try bytes("writer-\(number).zip")),
            ("text/rtf", try bytes("writer-\(number).rtf")),
            ("text/html", try bytes("writer-\(number).html")),
            (link, try bytes("writer-\(number).link")),
            (writerDescriptor, try bytes("writer.objectdescriptor")),
        ]
    }

    /// Calc's copy `number` (1 or 2): the text, LibreOffice's own copy, the descriptor and HTML.
    public static func calcCopy(_ number: Int) throws -> [(target: String, bytes: Data)] {
        [
            ("UTF8_STRING", try bytes("calc.txt")),
            (embedSource, try bytes("calc-\(number).zip")),
            (calcDescriptor, try bytes("calc.objectdescriptor")),
            ("text/html", try bytes("calc.html")),
        ]
    }
}
