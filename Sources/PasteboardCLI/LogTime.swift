#if canImport(Glibc)
import Glibc
#endif

/// The local time for a log line, `2026-12-01 10:05:01.123`, from the C library: no formatter (and no ICU data)
/// is loaded into a daemon that otherwise never needs one.
enum LogTime {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return String(spec.tv_sec) }
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        let milliseconds = Int(spec.tv_nsec / 1_000_000)
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) + "." + fraction
    }
}
