import FoundationEssentials
import Glibc

/// This process's resident memory, as the kernel counts it (`/proc/self/statm`).
public enum ResidentMemory {
    /// Resident bytes now; nil where `/proc` cannot be read.
    public static func bytes() -> Int? {
        guard let text = try? ReadableFile(path: "/proc/self/statm").read(upToCount: 128) else { return nil }  // no /proc: nil
        // "size resident shared text lib data dt", in pages.
        let fields = text.split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
