import CX11
import ClipboardBackend
import FoundationEssentials
import SystemSupport

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
        case file(ReadableFile)
    }

    private var source: Source

    init(_ data: Data) { source = .bytes(data, offset: 0) }

    /// The file at `url`, opened now (so a reader gets what it had when it asked).
    init(file url: URL) throws(SystemError) { source = .file(try ReadableFile(path: url.path)) }

    /// The next at most `count` bytes; empty at the end (and when the file cannot be read further, which ends the
    /// transfer short, as the reader then sees).
    func next(_ count: Int) -> Data {
        switch source {
        case .bytes(let data, let offset):
            let end = min(offset + count, data.count)
            source = .bytes(data, offset: end)
            return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
        case .file(let file):
            do { return try file.read(upToCount: count) } catch { return Data() }
        }
    }
}
