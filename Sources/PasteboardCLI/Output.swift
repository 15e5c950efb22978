public import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A buffered byte stream the commands write to: standard output or error, or memory in tests.
public final class Output {
    /// Bytes written since the last flush: an array, appended to without Data's bookkeeping (`pb export` writes
    /// a million lines through here).
    private var buffer: [UInt8] = []
    private let destination: Destination

    private enum Destination {
        case descriptor(Int32)
        case sink((Data) -> Void)
    }

    /// Bytes held before they are flushed.
    private static let capacity = 1 << 16

    /// An output that hands flushed bytes to `sink`.
    public init(sink: @escaping (Data) -> Void) {
        destination = .sink(sink)
        buffer.reserveCapacity(Self.capacity)
    }

    private init(descriptor: Int32) {
        destination = .descriptor(descriptor)
        buffer.reserveCapacity(Self.capacity)
    }

    /// Standard output or standard error.
    public static func fileDescriptor(_ fd: Int32) -> Output { Output(descriptor: fd) }

    /// Writes all of `bytes` to `fd`, going on after interruptions; stops when the reader went away (EPIPE):
    /// nothing more can be said.
    private static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.capacity { flush() }
    }

    public func write(_ data: Data) {
        data.withUnsafeBytes { write($0) }
    }

    /// Writes bytes; a large write goes out in pieces of 1 MiB, so the buffer never holds a copy of all of it.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, 1 << 20)
            buffer.append(contentsOf: UnsafeBufferPointer(start: base + offset, count: count))
            offset += count
            if buffer.count >= Self.capacity { flush() }
        }
    }

    public func line(_ text: String = "") { write(text + "\n") }

    public func flush() {
        guard !buffer.isEmpty else { return }
        switch destination {
        case .descriptor(let fd): buffer.withUnsafeBytes { Self.write($0, to: fd) }
        case .sink(let sink): sink(Data(buffer))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}
