import CX11
import ClipboardBackend
import Foundation

/// A large reply going out in INCR chunks, one per PropertyNotify(Delete) from the reader.
struct OutgoingTransfer {
    let requestor: Window
    let property: Atom
    let type: Atom
    let payload: OutgoingPayload
    var deadline: Date
    let selection: Selection
    var finished = false
}

/// The bytes of a reply, handed out a chunk at a time: from memory, or read from the payload file as the reader
/// asks, so serving a large stored item never holds it in memory.
final class OutgoingPayload {
    private enum Source {
        case bytes(Data, offset: Int)
        case file(FileHandle)
    }

    private var source: Source

    init(_ data: Data) { source = .bytes(data, offset: 0) }

    /// The file at `url`, opened now (so a reader gets what it had when it asked).
    init(file url: URL) throws { source = .file(try FileHandle(forReadingFrom: url)) }

    deinit {
        if case .file(let handle) = source {
            do { try handle.close() } catch {}  // read-only: nothing is lost when closing fails
        }
    }

    /// The next at most `count` bytes; empty at the end (and when the file cannot be read further, which ends the
    /// transfer short, as the reader then sees).
    func next(_ count: Int) -> Data {
        switch source {
        case .bytes(let data, let offset):
            let end = min(offset + count, data.count)
            source = .bytes(data, offset: end)
            return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
        case .file(let handle):
            do { return try handle.read(upToCount: count) ?? Data() } catch { return Data() }
        }
    }
}
