public import Foundation

/// A process's resident memory from `/proc/PID/status`: now (VmRSS) and its peak since it started (VmHWM).
public struct Memory: Sendable {
    public let resident: Int
    public let peak: Int

    public init?(pid: pid_t) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kibibytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else {
                return nil
            }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        guard let resident = kibibytes("VmRSS"), let peak = kibibytes("VmHWM") else { return nil }
        self.resident = resident << 10
        self.peak = peak << 10
    }
}
