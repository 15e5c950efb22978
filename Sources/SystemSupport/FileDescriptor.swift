public import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing an open file descriptor with read(2) and write(2), retrying interrupted calls: what
/// `FileHandle` did, without the part of Foundation that brings CoreFoundation along.
public enum FileDescriptor {
    /// Reads until `count` bytes or the end of the file, whichever comes first; fewer bytes mean the end was reached.
    public static func read(_ descriptor: Int32, upToCount count: Int) throws(SystemError) -> Data {
        precondition(count >= 0, "a negative count is a programmer error")
        var data = Data(count: count)
        var filled = 0
        let failure: SystemError? = data.withUnsafeMutableBytes { buffer in
            while filled < count {
                let result = Glibc.read(descriptor, buffer.baseAddress! + filled, count - filled)
                if result > 0 {
                    filled += result
                } else if result == 0 {
                    return nil
                } else if errno != EINTR {
                    return SystemError.last("read")
                }
            }
            return nil
        }
        if let failure { throw failure }
        data.removeSubrange(filled...)
        return data
    }

    /// Reads to the end of the file in chunks of `chunkSize` bytes.
    public static func readToEnd(_ descriptor: Int32, chunkSize: Int = 1 << 16) throws(SystemError) -> Data {
        var data = Data()
        while true {
            let chunk = try read(descriptor, upToCount: chunkSize)
            data.append(chunk)
            if chunk.count < chunkSize { return data }
        }
    }

    /// Writes `text` to standard error, for a diagnostic line. A failure is dropped: standard error is where it would
    /// be reported.
    public static func writeToStandardError(_ text: String) {
        do {
            try write(Array(text.utf8), to: 2)
        } catch {}
    }

    /// Writes all of `data`, however many write(2) calls it takes.
    public static func write(_ data: some DataProtocol, to descriptor: Int32) throws(SystemError) {
        for region in data.regions {
            let failure: SystemError? = region.withUnsafeBytes { buffer in
                var written = 0
                while written < buffer.count {
                    let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                    if result >= 0 {
                        written += result
                    } else if errno != EINTR {
                        return SystemError.last("write")
                    }
                }
                return nil
            }
            if let failure { throw failure }
        }
    }
}
