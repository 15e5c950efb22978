import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What `/proc` tells about the process behind a selection owner: its name, and whether it is working.
///
/// The process id comes from the X server (X-Resource), so it is that of a client on this machine; a client on
/// another host has none, and then neither is known.
enum OwnerProcess {
    /// The process's name as `ps` shows it (`/proc/PID/comm`, at most 15 bytes), else the file name of its
    /// executable; nil when the process is gone or not ours to read.
    static func name(pid: Int) -> String? {
        if let comm = read("/proc/\(pid)/comm", limit: 64) {
            let name = String(decoding: comm, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !name.isEmpty { return name }
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let name = URL(fileURLWithPath: path).lastPathComponent
        return name.isEmpty ? nil : name
    }

    /// The processor time the process has used (user and system, all threads), in seconds; nil when it is gone.
    static func cpuSeconds(pid: Int) -> Double? {
        // /proc/PID/stat: "pid (comm) state ..." where comm may hold spaces and parentheses: fields are counted
        // after the last ')'. utime and stime are fields 14 and 15 (11 and 12 after the name), in clock ticks.
        guard let stat = read("/proc/\(pid)/stat", limit: 4096), let close = stat.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 12, let user = UInt64(String(decoding: fields[11], as: UTF8.self)),
            let system = UInt64(String(decoding: fields[12], as: UTF8.self))
        else { return nil }
        return Double(user + system) / ticksPerSecond
    }

    private static let ticksPerSecond = Double(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// At most `limit` bytes of a small file, or nil when it cannot be read.
    private static func read(_ path: String, limit: Int) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = Glibc.read(descriptor, &buffer, limit)
        return count > 0 ? Data(buffer[0..<count]) : nil
    }
}
