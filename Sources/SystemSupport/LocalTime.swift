#if canImport(Glibc)
import Glibc
#endif

/// Local time as text, from the C library (`localtime_r`, `strftime`): no formatter and no ICU data is loaded,
/// in the daemon's log lines or the app's rows and previews. The one place pb turns a time into local text.
public enum LocalTime {
    /// `seconds` since 1970 in the local time zone, formatted by `strftime(3)` with `format` (at most 127 bytes of
    /// output), in the locale the process set; nil when the C library cannot convert it.
    public static func text(seconds: Int, format: String) -> String? {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
