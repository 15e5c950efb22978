import Foundation
import PasteboardTestSupport
import Testing

extension Tag {
    /// Tests that move gigabytes and take tens of seconds (leave them out with
    /// `swift test --skip LargeFileTransferTests`).
    @Tag static var slow: Self
}

/// A large file moves through a `FileRepresentation` and the headless store as a file: never loaded whole into
/// memory, so each process stays far below the file's size.
@Suite struct LargeFileTransferTests {
    let sandbox: ProcessSandbox

    init() throws {
        sandbox = try ProcessSandbox()
    }

    /// SLOW (about 30 s, 1 GiB of disk for the file plus 3 GiB for the store and the two pasted copies, all
    /// deleted afterwards).
    @Test(
        "SLOW: a 1 GiB video copies and pastes with peak memory under 100 MB, byte for byte",
        .tags(.slow), .timeLimit(.minutes(5)))
    func gigabyteVideoRoundTripsWithBoundedMemory() async throws {
        let source = sandbox.root.appendingPathComponent("files/source.mp4")
        let pasted = try sandbox.directory("pasted")
        defer {
            // The sandbox removes its directory too; the gigabytes go first, whatever happened.
            for url in [source, pasted, sandbox.storeLocation.blobDirectory] {
                try? FileManager.default.removeItem(at: url)
            }
        }
        try Self.writeFile(at: source, size: 1 << 30, chunkSize: 8 << 20)

        let copy = try await sandbox.succeed(.videoFile, ["copy", source.path], timeout: .seconds(240))
        let copyPeak = try #require(Self.peakMegabytes(copy), "\(copy)")
        #expect(copyPeak < 100, "video-file copy: \(copy)")

        let paste = try await sandbox.succeed(.videoFile, ["paste", pasted.path], timeout: .seconds(240))
        let pastePeak = try #require(Self.peakMegabytes(paste), "\(paste)")
        #expect(pastePeak < 100, "video-file paste: \(paste)")
        let saved = pasted.appendingPathComponent("video.mp4")
        #expect(paste.output.hasPrefix("saved \(saved.path);"), "\(paste)")
        try await expectIdentical(source, saved)

        let again = try await sandbox.succeed(.videoFile, ["paste", pasted.path], timeout: .seconds(240))
        let second = pasted.appendingPathComponent("video 2.mp4")
        #expect(again.output.hasPrefix("saved \(second.path);"), "\(again)")
        #expect(try Self.size(of: second) == 1 << 30)
        let names = try FileManager.default.contentsOfDirectory(atPath: pasted.path).sorted()
        #expect(names == ["video 2.mp4", "video.mp4"])
    }

    /// Compares two files with `cmp`, which streams them.
    private func expectIdentical(_ first: URL, _ second: URL, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let cmp = try ProcessSandbox.tool("cmp", package: "diffutils")
        let result = try await sandbox.run(cmp, [first.path, second.path], timeout: .seconds(120))
        #expect(
            result.succeeded, "cmp \(first.lastPathComponent) \(second.lastPathComponent): \(result)",
            sourceLocation: sourceLocation)
    }

    /// The "peak memory N MB" that video-file prints.
    private static func peakMegabytes(_ result: ProcessResult) -> Int? {
        guard let range = result.output.range(of: "peak memory ") else { return nil }
        return Int(result.output[range.upperBound...].prefix { $0.isNumber })
    }

    private static func size(of url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? -1
    }

    /// Writes `size` bytes in `chunkSize` pieces, never holding more than one piece: pseudo-random bytes, each
    /// piece stamped with its index so that no two are alike.
    private static func writeFile(at url: URL, size: Int, chunkSize: Int) throws {
        var generator = SplitMix64(seed: 0x5EED)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        chunk.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw SetupFailure("Cannot create \(url.path).")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }  // closed explicitly below; this only covers a failed write
        for index in 0..<(size / chunkSize) {
            withUnsafeBytes(of: UInt64(index).bigEndian) { stamp in
                chunk.withUnsafeMutableBytes { $0.copyMemory(from: stamp) }
            }
            try handle.write(contentsOf: chunk)
        }
        try handle.close()
    }
}

/// A small, fast pseudo-random generator (SplitMix64): the test file's bytes, reproducibly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }
}
