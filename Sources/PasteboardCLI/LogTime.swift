import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// The local time for a log line, `2026-12-01 10:05:01.123`, from the C library: no formatter (and no ICU data)
/// is loaded into a daemon that otherwise never needs one.
enum LogTime {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        guard let text = LocalTime.text(seconds: Int(spec.tv_sec), format: "%Y-%m-%d %H:%M:%S") else {
            return String(spec.tv_sec)
        }
        let milliseconds = Int(spec.tv_nsec / 1_000_000)
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return text + "." + fraction
    }
}
