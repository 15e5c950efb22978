public import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A buffered byte stream the commands write to: standard output or error, or memory in tests.
public final class Output {
    private var buffer = Data()
    private let sink: (Data) -> Void

    /// An output that hands flushed bytes to `sink`.
    public init(sink: @escaping (Data) -> Void) { self.sink = sink }

    /// Standard output or standard error.
    public static func fileDescriptor(_ fd: Int32) -> Output {
        Output { data in
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 {
                        if written < 0 && errno == EINTR { continue }
                        return  // the reader went away (EPIPE): nothing more can be said
                    }
                    offset += written
                }
            }
        }
    }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    public func write(_ data: Data) {
        buffer.append(data)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes bytes; a large write goes out in pieces of 1 MiB, so the buffer never holds a copy of all of it.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 << 20)
            buffer.append(base + offset, count: count)
            offset += count
            if buffer.count >= 1 << 16 { flush() }
        }
    }

    public func line(_ text: String = "") { write(text + "\n") }

    public func flush() {
        guard !buffer.isEmpty else { return }
        sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
