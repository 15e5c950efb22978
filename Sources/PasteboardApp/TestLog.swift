import Foundation
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// With `PASTEBOARD_GTK_TEST_LOG=path`, one line per user-visible change of state ("window shown", "rows 5",
/// "preview text hello"), appended to that file, for the integration tests and benchmarks. Off otherwise.
@MainActor
final class TestLog {
    private let descriptor: Int32?
    private let start = Date()
    private var reportedFailure = false

    init(environment: [String: String]) {
        guard let path = environment["PASTEBOARD_GTK_TEST_LOG"], !path.isEmpty else {
            descriptor = nil
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if fd < 0 {
            let reason = SystemError.lastReason
            FileHandle.standardError.write(Data("pasteboard-gtk: cannot open the test log \(path): \(reason)\n".utf8))
        }
        descriptor = fd < 0 ? nil : fd
    }

    var isEnabled: Bool { descriptor != nil }

    /// Appends `line` (newlines replaced) with the milliseconds since the app started.
    func note(_ line: String) {
        guard let descriptor else { return }
        let elapsed = Int(Date().timeIntervalSince(start) * 1000)
        let text = "\(elapsed) " + line.replacingOccurrences(of: "\n", with: "\\n") + "\n"
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written != bytes.count && !reportedFailure {
            // A test log that cannot be written is reported once; the app itself goes on.
            reportedFailure = true
            FileHandle.standardError.write(
                Data("pasteboard-gtk: writing the test log failed: \(SystemError.lastReason)\n".utf8))
        }
    }
}
