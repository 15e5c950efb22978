import Glibc

/// This process's resident memory, as the kernel counts it (`/proc/self/statm`).
public enum ResidentMemory {
    /// Resident bytes now; nil where `/proc` cannot be read.
    public static func bytes() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // "size resident shared text lib data dt", in pages.
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
