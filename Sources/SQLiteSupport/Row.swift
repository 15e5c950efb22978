public import FoundationEssentials
internal import CSQLite

/// One result row, copied out of the statement at once.
public struct Row: Sendable {
    /// The values by column position.
    public let values: [SQLiteValue]
    private let names: [String: Int]

    /// The columns of the row `statement` stands on, by name.
    static func names(of statement: Statement) -> [String: Int] {
        var names: [String: Int] = [:]
        for i in 0..<sqlite3_column_count(statement.handle) {
            names[String(cString: sqlite3_column_name(statement.handle, i))] = Int(i)
        }
        return names
    }

    /// The row `statement` stands on; `names` are its columns (`names(of:)`), shared by the rows of one run.
    init(statement: Statement, names: [String: Int]) {
        let count = sqlite3_column_count(statement.handle)
        var values: [SQLiteValue] = []
        values.reserveCapacity(Int(count))
        for i in 0..<count {
            switch sqlite3_column_type(statement.handle, i) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(statement.handle, i)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(statement.handle, i)))
            case SQLITE_TEXT:
                let length = Int(sqlite3_column_bytes(statement.handle, i))
                if let pointer = sqlite3_column_text(statement.handle, i) {
                    let buffer = UnsafeBufferPointer(start: pointer, count: length)
                    values.append(.text(String(decoding: buffer, as: UTF8.self)))
                } else {
                    values.append(.text(""))
                }
            case SQLITE_BLOB:
                let length = Int(sqlite3_column_bytes(statement.handle, i))
                if let pointer = sqlite3_column_blob(statement.handle, i), length > 0 {
                    values.append(.blob(Data(bytes: pointer, count: length)))
                } else {
                    values.append(.blob(Data()))
                }
            default: values.append(.null)
            }
        }
        self.values = values
        self.names = names
    }

    public subscript(index: Int) -> SQLiteValue { values[index] }

    public subscript(name: String) -> SQLiteValue {
        guard let index = names[name] else {
            preconditionFailure("no column named \(name)")  // programmer error: the SQL names its columns
        }
        return values[index]
    }

    /// Whether the row has a column named `name` (the subscripts trap on a name the SQL does not give).
    public func has(_ name: String) -> Bool { names[name] != nil }

    public func int(_ name: String) -> Int64? {
        switch self[name] {
        case .integer(let v): return v
        case .real(let v): return Int64(v)
        default: return nil
        }
    }

    public func double(_ name: String) -> Double? {
        switch self[name] {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return nil
        }
    }

    public func string(_ name: String) -> String? {
        switch self[name] {
        case .text(let v): return v
        case .blob(let v): return String(decoding: v, as: UTF8.self)
        case .integer(let v): return String(v)
        default: return nil
        }
    }

    public func data(_ name: String) -> Data? {
        switch self[name] {
        case .blob(let v): return v
        case .text(let v): return Data(v.utf8)
        default: return nil
        }
    }

    public func int(_ index: Int) -> Int64? {
        if case .integer(let v) = values[index] { return v }
        return nil
    }

    public func data(_ index: Int) -> Data? {
        switch values[index] {
        case .blob(let v): return v
        case .text(let v): return Data(v.utf8)
        default: return nil
        }
    }
}
