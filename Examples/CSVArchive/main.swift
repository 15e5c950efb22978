// A table moving as CSV through a DataRepresentation (and as plain text for any text field).
//
//   csv-archive copy      copies a small table
//   csv-archive paste     reads it back as a table and prints its rows
import Foundation
import PasteboardKit

struct Table: Transferable {
    var rows: [[String]]

    static var transferRepresentation: some TransferRepresentation {
        DataRepresentation(contentType: .commaSeparatedText) { table in
            Data(table.rows.map { $0.joined(separator: ",") }.joined(separator: "\n").utf8)
        } importing: { data in
            Table(rows: String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").map(String.init) })
        }
        ProxyRepresentation(exporting: { table in table.rows.map { $0.joined(separator: "\t") }.joined(separator: "\n") })
    }
}

@main
struct CSVArchiveExample {
    static func main() async throws {
        switch CommandLine.arguments.dropFirst().first {
        case "copy":
            try await Pasteboard.general.write(Table(rows: [["city", "population"], ["Lisbon", "545923"], ["Porto", "231800"]]))
            print("copied 3 rows")
        case "paste":
            guard let table = try await Pasteboard.general.read(Table.self) else {
                print("Error: the clipboard holds no CSV")
                exit(1)
            }
            for row in table.rows { print(row.joined(separator: " | ")) }
        default:
            print("usage: csv-archive copy | csv-archive paste")
            exit(64)
        }
    }
}
