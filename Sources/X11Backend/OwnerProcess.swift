import CX11
import FoundationEssentials
import TextSupport

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
            let name = String(decoding: comm, as: UTF8.self).trimmingWhitespaceAndNewlines()
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

    /// How many process ids after a vanished one are looked at for the process that kept its X connection.
    static let heirSearchWindow = 64

    /// The process that holds the X connection `pid` opened, when `pid` itself is gone.
    ///
    /// xclip and xsel connect, take the selection, fork, and let the first process exit at once: the X server
    /// names that first process (it learnt the id when the connection was made), which is gone by the time the
    /// daemon looks, often within the millisecond. The forked child has the next process ids: the first of the
    /// following `heirSearchWindow` that holds a Unix socket whose peer is this display's socket
    /// (`displaySockets`, as sock_diag names it) is taken for it. Nil when `pid` still runs or none is found.
    static func heir(ofGone pid: Int, displaySockets: Set<String>) -> Int? {
        guard !displaySockets.isEmpty, access("/proc/\(pid)", F_OK) != 0 else { return nil }
        for candidate in (pid + 1)...(pid + heirSearchWindow) where isProcess(candidate) {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(candidate)/fd") else {
                continue  // gone meanwhile, or not ours to read
            }
            for entry in entries.prefix(512) {
                guard let inode = socketInode("/proc/\(candidate)/fd/\(entry)") else { continue }
                var name = [CChar](repeating: 0, count: 256)
                let length = pb_unix_peer_name(inode, &name, Int32(name.count))
                guard length > 0 else { continue }
                let peer = String(decoding: name[0..<Int(length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if displaySockets.contains(peer) { return candidate }
            }
        }
        return nil
    }

    /// Whether `pid` is a process rather than a thread of another (/proc answers for thread ids too).
    private static func isProcess(_ pid: Int) -> Bool {
        guard let status = read("/proc/\(pid)/status", limit: 1024) else { return false }
        let text = String(decoding: status, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Tgid:") }) else { return false }
        return Int(line.dropFirst(5).trimmingWhitespace()) == pid
    }

    /// The inode of the socket an fd link points to (`socket:[12345]`), or nil.
    private static func socketInode(_ link: String) -> UInt32? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 9 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard target.hasPrefix("socket:["), target.hasSuffix("]") else { return nil }
        return UInt32(target.dropFirst(8).dropLast())
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
