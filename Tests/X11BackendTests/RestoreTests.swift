import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension X11IntegrationTests {
    /// `pb restore` through the daemon is a move: the item goes to the top with its count bumped, its payload file is
    /// neither read nor written on the way, and readers still get every byte, checked against its hash first.
    @Suite struct Restoring {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        /// The store's payload files with their inode and modification time, which a rewrite would change.
        func payloadFiles() -> [String: String] {
            var files: [String: String] = [:]
            for url in session.storeFiles() where url.path.contains("/blobs/") {
                var info = stat()
                guard stat(url.path, &info) == 0 else { continue }
                files[url.lastPathComponent] = "\(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            }
            return files
        }

        @Test func aRestoredFiftyMegabyteItemComesBackByteForByteFromTheDaemon() async throws {
            // Binary bytes (every value, no text), so no conversion can hide a changed byte.
            var payload = Data(count: 50_000_000)
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            payload.withUnsafeMutableBytes { buffer in
                for index in buffer.indices {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    buffer[index] = UInt8(truncatingIfNeeded: state >> 33)
                }
            }
            // Into the store without a display, so the daemon starts with nothing to capture.
            let copy = try await session.pb(
                ["copy", "--type", "application/x-pb-test-blob"], stdin: payload, environment: ["DISPLAY": nil])
            #expect(copy.succeeded, "\(copy)")
            let newer = try await session.pb(["copy"], stdin: Data("newer".utf8), environment: ["DISPLAY": nil])
            #expect(newer.succeeded, "\(newer)")
            let entries = try await session.history()
            let id = try #require(entries.last?.id)
            let files = payloadFiles()
            try #require(files.count == 1, "\(files)")
            let daemon = try await session.startDaemon(onEmptyHistory: false)

            try await session.pbSucceeding(["restore", String(id)])

            let restored = try await session.history()
            #expect(restored.first?.id == id && restored.first?.copyCount == 2, "\(restored)")
            #expect(payloadFiles() == files, "the payload file was written again")
            for _ in 0..<2 {  // the second reader gets the bytes checked by the first
                let read = try await session.xclipPaste(target: "application/x-pb-test-blob", timeout: .seconds(60))
                #expect(read.succeeded, "\(read.stderr)")
                #expect(read.stdout == payload, "\(read.stdout.count) bytes read back, not the \(payload.count) copied")
            }
            try await session.stop(daemon: daemon)
        }

        @Test func aRestoredItemWhosePayloadFileWasDamagedIsNeverServed() async throws {
            var payload = Data()
            while payload.count < 1 << 20 { payload.append(Data("a payload damaged on disk\n".utf8)) }
            let copy = try await session.pb(["copy"], stdin: payload, environment: ["DISPLAY": nil])
            #expect(copy.succeeded, "\(copy)")
            let id = try #require(try await session.history().first?.id)
            let file = try #require(session.storeFiles().first { $0.path.contains("/blobs/") })
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: file)
            let daemon = try await session.startDaemon(onEmptyHistory: false)

            // The restore reads nothing, so it cannot know; the first reader's check finds the damage.
            try await session.pbSucceeding(["restore", String(id)])
            let read = try await session.xclipPaste(timeout: .seconds(10))
            #expect(read.stdout.range(of: Data("damaged on disk".utf8)) == nil, "the damaged bytes were served")
            #expect(!read.succeeded, "\(read)")
            #expect(
                daemon.stderr.contains("clipboard: not served: Item \(id)'s public.utf8-plain-text payload file"),
                "\(daemon.stderr.suffix(2000))")
            #expect(daemon.stderr.contains("is damaged"))
            try await session.stop(daemon: daemon)
        }
    }
}
