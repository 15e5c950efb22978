// libFuzzer target: what a sync folder's files are read with, from a device that may be hostile.
//
// - The input as a sealed file (`SecretStream.open` with a fixed key): a bad header, a lying length or bytes after the
//   end must throw, never crash or read past the input.
// - The input as a segment's plain text (the operation groups inside a sealed file): the decoder over the whole text
//   and the streaming decoder fed in pieces (their sizes from the input) must agree, and what decodes must encode and
//   decode again to the same operations.
// - The input sealed with the key and opened again: the same messages.
//
// Built and run by scripts/fuzz.sh; seeds in Fuzz/corpus/sync-segment/.
import Foundation

@testable import PasteboardSync

private let key = SecretKey(Data(repeating: 7, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncSegment(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes.map { Data(bytes: $0, count: size) } ?? Data()

    // A sealed file as a folder host could write it.
    _ = try? SecretStream.open(input, key: key, context: "segment")

    // The groups inside one, whole and streamed.
    let whole = SegmentCodec.decodeGroups(input)
    var stream = GroupStreamDecoder()
    var streamed: [SyncOperation]? = []
    var offset = 0
    var step = 1
    while offset < input.count, streamed != nil {
        let piece = input[input.startIndex + offset..<input.startIndex + min(input.count, offset + step)]
        if let operations = stream.feed(Data(piece)) { streamed?.append(contentsOf: operations) } else { streamed = nil }
        offset += step
        step = step * 3 % 97 + 1
    }
    if streamed != nil {
        if let rest = stream.finish() { streamed?.append(contentsOf: rest) } else { streamed = nil }
    }
    precondition(
        (whole == nil) == (streamed == nil) && (whole == nil || whole! == streamed!),
        "the streaming decoder and the whole-text decoder disagree")
    if let whole {
        let again = SegmentCodec.decodeGroups(SegmentCodec.encodeGroups(whole))
        precondition(again == whole, "decoded operations do not encode and decode again to themselves")
    }

    // Sealed and opened again.
    // A sealed file holds at least one message (`seal` requires it of its callers).
    if !input.isEmpty, input.count <= 1 << 16 {
        let messages = stride(from: 0, to: input.count, by: 1000).map { input[input.startIndex + $0..<input.startIndex + min(input.count, $0 + 1000)] }.map { Data($0) }
        if let sealed = try? SecretStream.seal(messages, key: key, context: "segment") {
            let opened = try? SecretStream.open(sealed, key: key, context: "segment")
            precondition(opened == messages, "a sealed file does not open to its messages")
            precondition((try? SecretStream.open(sealed, key: key, context: "snapshot")) == nil, "another context opened it")
        }
    }
    return 0
}
