internal import CSQLite

/// One call of a function defined with `Connection.defineFunction`: its arguments, and the place for its result.
///
/// Valid only while the function runs; nothing of it may be kept.
public struct FunctionCall: ~Copyable {
    let context: OpaquePointer
    let arguments: UnsafeMutablePointer<OpaquePointer?>
    /// How many arguments the call has.
    public let argumentCount: Int

    private func value(_ index: Int) -> OpaquePointer? {
        precondition(index >= 0 && index < argumentCount, "argument \(index) of \(argumentCount)")
        return arguments[index]
    }

    /// Whether argument `index` is NULL.
    public func isNull(_ index: Int) -> Bool { sqlite3_value_type(value(index)) == SQLITE_NULL }

    /// Argument `index` as an integer (0 for NULL).
    public func integer(_ index: Int) -> Int64 { sqlite3_value_int64(value(index)) }

    /// The bytes of argument `index` (a text's UTF-8, a blob's bytes; empty for NULL).
    public func withBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let argument = value(index)
        let start = sqlite3_value_blob(argument)
        let count = Int(sqlite3_value_bytes(argument))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
    }

    /// The result is argument `index` itself, unchanged (no copy).
    public func returnArgument(_ index: Int) { sqlite3_result_value(context, value(index)) }

    /// The result is a blob holding a copy of `bytes` (SQLite copies them before this returns, into its
    /// connection's own small-allocation pool when they fit).
    public func returnCopy(of bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(Int32.max) else {
            return sqlite3_result_zeroblob(context, 0)
        }
        pb_sqlite3_result_blob_transient(context, start, Int32(bytes.count))
    }

    /// The result is an empty blob.
    public func returnEmptyBlob() { sqlite3_result_zeroblob(context, 0) }
}

/// The Swift body behind a defined function, kept alive by SQLite until the function is dropped.
private final class FunctionBody {
    let body: (borrowing FunctionCall) -> Void
    init(_ body: @escaping (borrowing FunctionCall) -> Void) { self.body = body }
}

extension Connection {
    /// Defines the SQL function `name` with `argumentCount` arguments on this connection: each call runs `body`,
    /// which must set the result through the `FunctionCall` (a call that sets none returns NULL).
    ///
    /// `deterministic`: the same arguments always give the same result, so SQLite may use it in indexes and
    /// factor it out of loops (`SQLITE_DETERMINISTIC`).
    public func defineFunction(
        _ name: String, argumentCount: Int, deterministic: Bool = true,
        _ body: @escaping (borrowing FunctionCall) -> Void
    ) throws(SQLiteError) {
        let box = Unmanaged.passRetained(FunctionBody(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let rc = sqlite3_create_function_v2(
            handle, name, Int32(argumentCount), flags, box,
            { context, count, values in
                guard let context, let values, let box = sqlite3_user_data(context) else { return }
                let function = Unmanaged<FunctionBody>.fromOpaque(box).takeUnretainedValue()
                function.body(FunctionCall(context: context, arguments: values, argumentCount: Int(count)))
            }, nil, nil,
            { box in
                guard let box else { return }
                Unmanaged<FunctionBody>.fromOpaque(box).release()
            })
        // On failure SQLite has already called the destructor, which released the box.
        if rc != SQLITE_OK { throw error(rc, sql: nil) }
    }
}
