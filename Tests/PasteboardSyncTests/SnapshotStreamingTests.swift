import Foundation
import PasteboardHistory
import PasteboardTestSupport
import Testing
@testable import PasteboardSync

/// A snapshot's body is decoded as its messages come, never held whole (issue 27 follow-up).
@Suite struct SnapshotStreamingTests {
    static func operations(_ count: Int, seed: UInt64) -> [SyncOperation] {
        var random = SeededRandom(seed: seed)
        let devices = (0..<3).map { _ in DeviceID(rawValue: (0..<16).map { _ in String("0123456789abcdef".randomElement(using: &random)!) }.joined())! }
        return (0..<count).map { index in
            let clock = HybridClock(milliseconds: 1_700_000_000_000 + UInt64(index), counter: 0, device: devices[index % 3])
            let identity = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &random)) }.joined()
            switch index % 4 {
            case 0:
                var copy = SyncOperation(kind: .copy, clock: clock, identity: identity)
                copy.representations = [.init(type: "public.utf8-plain-text", payload: nil, size: 5 + index % 300, inline: Data(repeating: UInt8(index % 200), count: 5 + index % 300))]
                return copy
            case 1: return SyncOperation(kind: .pin, clock: clock, identity: identity)
            case 2: return SyncOperation(kind: .delete, clock: clock, identity: identity)
            default: return SyncOperation(kind: .clear, clock: clock, keepsPinned: index % 8 == 3)
            }
        }
    }

    /// Fed in pieces of any size (a byte at a time too), the stream decoder gives what the whole-body decoder does;
    /// cut short, or with a byte more, it refuses.
    @Test func theStreamDecoderAgreesWithTheWholeDecoderForAnyCut() throws {
        let operations = Self.operations(3000, seed: 7)
        let body = SegmentCodec.encodeGroups(operations)
        let whole = SegmentCodec.decodeGroups(body)
        #expect(whole?.count == operations.count)
        var random = SeededRandom(seed: 11)
        for piece in [1, 7, 100, 65536, body.count] {
            var decoder = GroupStreamDecoder()
            var streamed: [SyncOperation] = []
            var start = 0
            while start < body.count {
                let end = min(body.count, start + (piece == 1 ? 1 : Int.random(in: 1...piece, using: &random)))
                let decoded = decoder.feed(body.subdata(in: start..<end))
                #expect(decoded != nil, "piece \(piece) at \(start)")
                streamed += decoded ?? []
                start = end
            }
            let last = decoder.finish()
            #expect(last != nil, "piece \(piece)")
            streamed += last ?? []
            #expect(streamed == whole, "piece \(piece)")
        }
        var short = GroupStreamDecoder()
        _ = short.feed(body.prefix(body.count - 3))
        #expect(short.finish() == nil)
        var long = GroupStreamDecoder()
        _ = long.feed(body + Data([0]))
        #expect(long.finish() == nil)
    }

    /// A validly sealed snapshot of 600,000 operations (13 MiB sealed) taken in by B's daemon: the body is decoded a
    /// message at a time, never held whole with all its operations. Measured: 125 MiB at the peak, against 227 MiB
    /// when the body and its decoded operations were held whole; what remains is mostly the set of items the round
    /// touched and SQLite's page cache.
    @Test func aHugeValidSnapshotIsTakenInAMessageAtATime() async throws {
        let pb = try Product.pb.path()
        let a = try ProcessSandbox(label: "pbsnapstream-a")
        let b = try ProcessSandbox(label: "pbsnapstream-b")
        let folder = try a.directory("shared")
        let created = try await a.run(pb, ["sync", "init", "--folder", folder.path])
        let phrase = try #require(created.output.split(separator: "\n").last.map(String.init))
        #expect(try await b.run(pb, ["sync", "join", "--folder", folder.path], stdin: Data((phrase + "\n").utf8)).status == 0)
        let key = try SyncKey(phrase: phrase)
        // Deletes of 600,000 items no one has: small on disk, many operations once decoded.
        let writer = try DeviceID.random()
        let count = 600_000
        var operations: [SyncOperation] = []
        operations.reserveCapacity(count)
        for index in 0..<count {
            let identity = String(repeating: "0", count: 16) + String(format: "%016x", index)
            operations.append(SyncOperation(kind: .delete, clock: HybridClock(milliseconds: 1_700_000_000_000 + UInt64(index), counter: 0, device: writer), identity: identity))
        }
        let body = SegmentCodec.encodeGroups(operations)
        let path = SyncFolder.snapshotPath(device: writer, sequence: 1)
        let header = SyncEngine.SnapshotHeader(
            device: writer.rawValue, sequence: 1, clock: HybridClock(milliseconds: 1_700_000_900_000, counter: 0, device: writer),
            count: count, covers: [writer.rawValue: 1])
        var messages = [try JSONEncoder().encode(header)]
        var start = 0
        while start < body.count {
            messages.append(body.subdata(in: start..<min(body.count, start + SecretStream.chunkBytes)))
            start += SecretStream.chunkBytes
        }
        let sealed = try SecretStream.seal(messages, key: key.snapshotKey, context: path)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("devices/\(writer.rawValue)"), withIntermediateDirectories: true)
        try sealed.write(to: folder.appendingPathComponent(path))
        operations = []

        let daemon = try b.launch(pb, ["daemon", "--backend", "headless"])
        defer { daemon.send(SIGTERM) }
        let state = try SyncState(directory: b.root.appendingPathComponent("data/pasteboard/sync"))
        let applied = try await eventually(within: .seconds(120)) { try state.file(path)?.status == "applied" }
        #expect(applied, "\(daemon.stderr)")
        let peak = try #require(peakMemory(of: daemon.pid))
        print("SnapshotStreamingTests: \(sealed.count >> 20) MiB snapshot of \(count) operations, daemon peak \(peak >> 20) MiB")
        #expect(peak < 170 << 20, "peak \(peak >> 20) MiB")
    }
}

/// A small deterministic generator (SplitMix64) for repeatable test data.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
