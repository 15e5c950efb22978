#if canImport(Glibc)
import Glibc
#endif

/// Numbers written with a C `printf` format (`"%.2f"`, `"%02x"`), as Foundation's `String(format:)` writes them.
///
/// The program never calls `setlocale`, so the C library formats in the "C" locale: a point for the decimal
/// separator whatever the user's locale, which is what scripts reading pb's output expect.
public enum CFormat {
    /// The text `format` makes of `arguments`; a format that yields more than 255 bytes is cut there.
    public static func string(_ format: String, _ arguments: any CVarArg...) -> String {
        withVaList(arguments) { list in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
                let count = vsnprintf(buffer.baseAddress, buffer.count, format, list)
                guard count > 0 else { return "" }
                let bytes = UnsafeRawBufferPointer(start: buffer.baseAddress, count: min(Int(count), buffer.count - 1))
                return String(decoding: bytes, as: UTF8.self)
            }
        }
    }
}
