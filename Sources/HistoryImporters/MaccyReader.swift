import FoundationEssentials
import PasteboardModel
import SQLiteSupport

/// Maccy's history (`Storage.sqlite`, Core Data): `ZHISTORYITEM` rows (first and last copy, number of copies, the
/// application, `ZPIN` a letter when pinned) and their `ZHISTORYITEMCONTENT` rows (`ZITEM`, a pasteboard type
/// `ZTYPE` such as `public.utf8-plain-text` or `public.png`, and the bytes `ZVALUE`). Core Data counts time in
/// seconds since 2001-01-01. The database is opened read-only; Maccy's own marker types are left out.
public enum MaccyReader {
    /// Seconds from 1970 to Core Data's reference date, 2001-01-01.
    static let referenceDate = 978_307_200.0

    public static func read(path: String) throws(ImportError) -> ImportedHistory {
        var history = ImportedHistory(files: [path])
        do {
            let db = try Connection(path: path, mode: .readOnly)
            defer { _ = Result { try db.close() } }
            var contents: [Int64: [(type: String, data: Data)]] = [:]
            let content = try db.prepare("SELECT ZITEM, ZTYPE, ZVALUE FROM ZHISTORYITEMCONTENT ORDER BY ZITEM, Z_PK")
            while let row = try content.step() {
                guard let item = row.int("ZITEM"), let type = row.string("ZTYPE") else { continue }
                guard let data = row.data("ZVALUE"), !data.isEmpty else {
                    history.skip("empty formats")
                    continue
                }
                contents[item, default: []].append((type, data))
            }
            let items = try db.prepare(
                """
                SELECT Z_PK, ZFIRSTCOPIEDAT, ZLASTCOPIEDAT, ZNUMBEROFCOPIES, ZPIN, ZAPPLICATION
                FROM ZHISTORYITEM ORDER BY ZLASTCOPIEDAT DESC, Z_PK DESC
                """)
            while let row = try items.step() {
                guard let id = row.int("Z_PK") else { continue }
                var seen = Set<ContentType>()
                var representations: [PasteboardItem.Representation] = []
                for (name, data) in contents[id] ?? [] {
                    if name.hasPrefix("org.p0deje.Maccy") { continue }  // Maccy's markers of its own copies
                    let type = ContentType(name)
                    guard seen.insert(type).inserted else { continue }
                    representations.append(.init(type: type, data: data))
                }
                guard !representations.isEmpty else {
                    history.skip("empty items")
                    continue
                }
                let date = row.double("ZLASTCOPIEDAT").map { Date(timeIntervalSince1970: $0 + referenceDate) }
                let created = row.double("ZFIRSTCOPIEDAT").map { Date(timeIntervalSince1970: $0 + referenceDate) }
                let pin = row.string("ZPIN") ?? ""
                history.items.append(
                    ImportedItem(
                        item: PasteboardItem(representations), date: date, created: created,
                        copyCount: Int(max(1, row.int("ZNUMBEROFCOPIES") ?? 1)), isPinned: !pin.isEmpty, source: row.string("ZAPPLICATION")))
            }
        } catch {
            throw ImportError("\(path) cannot be read as Maccy's history: \(error.message).")
        }
        return history
    }
}
