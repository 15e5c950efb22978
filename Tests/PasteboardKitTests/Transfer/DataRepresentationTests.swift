import Foundation
import PasteboardKit
import Testing

@Suite struct DataRepresentationTests {
    typealias Table = TransferFixtures.Table
    typealias Report = TransferFixtures.Report
    typealias Count = TransferFixtures.Count

    @Test func csvRoundTrip() async throws {
        let table = Table(rows: [["name", "age"], ["Ada", "36"], ["Grace", ""]])
        let item = try await PasteboardItem(exporting: table)

        #expect(item.types == [.commaSeparatedText])
        #expect(item.data(forType: .commaSeparatedText) == Data("name,age\nAda,36\nGrace,".utf8))
        #expect(try await item.value(as: Table.self) == table)
    }

    @Test func exportOnlyRepresentationExportsButNeverImports() async throws {
        let item = try await PasteboardItem(exporting: Report(title: "Q3"))

        #expect(item.types == [.markdown])
        #expect(item.data(forType: .markdown) == Data("# Q3\n".utf8))
        #expect(try await item.value(as: Report.self) == nil)
        #expect(Pasteboard.importedContentTypes(for: Report.self).isEmpty)
    }

    @Test func importOnlyRepresentationImportsButCannotExport() async throws {
        let item = PasteboardItem(string: "42")

        #expect(try await item.value(as: Count.self) == Count(value: 42))
        #expect(Pasteboard.exportedContentTypes(for: Count.self).isEmpty)
        let error = await #expect(throws: PasteboardError.self) { try await PasteboardItem(exporting: Count(value: 1)) }
        #expect(error?.code == .conversion)
    }

    @Test func importerErrorBecomesAConversionError() async throws {
        let item = PasteboardItem(string: "forty-two")

        let error = await #expect(throws: PasteboardError.self) { try await item.value(as: Count.self) }

        #expect(error?.code == .conversion)
        #expect(error?.message.contains("Count") == true)
        #expect(error?.message.contains("notANumber") == true)
    }

    @Test func importerReadsFromAConformingType() async throws {
        // Count imports `.plainText`; a Markdown representation conforms to it.
        let item = PasteboardItem(data: Data("7".utf8), type: .markdown)

        #expect(try await item.value(as: Count.self) == Count(value: 7))
    }

    @Test func itemWithoutAnImportedTypeGivesNil() async throws {
        let item = PasteboardItem(data: Data([1, 2, 3]), type: .zip)

        #expect(try await item.value(as: Table.self) == nil)
    }
}
