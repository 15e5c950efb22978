import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// A store on a 2 MiB tmpfs that fills up: one clear error, nothing damaged or half-written, and everything
    /// works again once space comes back. Needs root to mount (fails, never skips, without it).
    @Suite struct FullDisk {
        /// A copy that cannot fit, and how little room is left for it.
        struct Case: Sendable, CustomTestStringConvertible {
            let testDescription: String
            let payloadBytes: Int
            let freeBytes: Int
            /// `pb copy FILE` (copied in chunks) rather than standard input.
            let fromFile: Bool
        }

        static let cases = [
            Case(
                testDescription: "a payload kept as a file, larger than the free space", payloadBytes: 900_000,
                freeBytes: 256 << 10, fromFile: true),
            Case(
                testDescription: "a payload kept in the database, larger than the free space", payloadBytes: 48 << 10,
                freeBytes: 16 << 10, fromFile: false),
            Case(
                testDescription: "a small text on a disk with no byte left", payloadBytes: 2_000, freeBytes: 0,
                fromFile: false),
        ]

        @Test(arguments: cases)
        func copyThatDoesNotFitFailsClearlyAndTheNextOneWorksOnceSpaceReturns(_ test: Case) async throws {
            let disk = try await TinyFilesystem(bytes: 2 << 20)
            defer { withExtendedLifetime(disk) {} }  // mounted until the end, whatever the optimizer thinks
            let harness = try Harness(
                label: "pbdisk", overrides: ["PB_STORE_DIR": disk.mountPoint.appendingPathComponent("pb").path])
            try await harness.copy("earlier one")
            try await harness.copy("earlier two")
            try await harness.pbSucceeding(["copy"], stdin: Payloads.largeText(count: 100_000))  // a blob file
            let before = try await harness.itemTexts()
            let filesBefore = harness.blobFiles()
            try #require(before.count == 3 && filesBefore.count == 1, "\(before) \(filesBefore)")

            let payload = Payloads.largeText(count: test.payloadBytes)
            let input = try harness.sandbox.file(payload, name: "payload.txt")
            try disk.fill(leaving: test.freeBytes)
            let free = disk.freeBytes
            try #require(free < test.payloadBytes, "\(free) bytes are free")
            let failed =
                test.fromFile
                ? try await harness.pb(["copy", input.path]) : try await harness.pb(["copy"], stdin: payload)
            #expect(failed.status == 1 && !failed.wasSignalled, "\(failed)")
            #expect(failed.stdout.isEmpty, "\(failed)")
            let errorLines = failed.stderr.split(separator: "\n")
            #expect(errorLines.count == 1, "\(failed)")
            #expect(errorLines.first?.hasPrefix("Error: ") == true, "\(failed)")
            #expect(errorLines.first?.contains("is full") == true, "the error does not say the disk is full: \(failed)")
            #expect(!harness.blobFiles().contains { $0.contains(".tmp-") }, "a half-written payload file stayed")

            try disk.free()
            #expect(try await harness.integrityCheck() == "ok")
            #expect(try await harness.itemTexts() == before, "the earlier items changed")
            #expect(harness.blobFiles() == filesBefore)
            let retried =
                test.fromFile
                ? try await harness.pb(["copy", input.path]) : try await harness.pb(["copy"], stdin: payload)
            #expect(retried.succeeded, "\(retried)")
            #expect(try await harness.pbSucceeding(["paste"]).stdout == payload, "the copy after freeing space")
            #expect(try await harness.itemCount() == 4)
        }

        /// The daemon keeps running through a full disk, says why a copy was not recorded, and records the next
        /// copy once space is back.
        @Test func daemonCaptureResumesWhenSpaceReturns() async throws {
            let disk = try await TinyFilesystem(bytes: 2 << 20)
            defer { withExtendedLifetime(disk) {} }  // mounted until the end, whatever the optimizer thinks
            let harness = try await Harness(
                label: "pbdiskx", display: "the full-disk capture test",
                overrides: ["PB_STORE_DIR": disk.mountPoint.appendingPathComponent("pb").path])
            let daemon = try await harness.startDaemon()
            let watch = try await harness.startWatch()
            func captured(_ count: Int) async throws -> Bool {
                try await eventually(within: .seconds(15)) { watch.captures.count >= count }
            }

            try await harness.xclipCopy(Data("before the disk filled".utf8))
            #expect(try await captured(1), "\(daemon.stderr)")
            try disk.fill(leaving: 0)
            try await harness.xclipCopy(Payloads.largeText(count: 300_000))
            let refused = try await eventually(within: .seconds(15)) { daemon.stderr.contains("could not record") }
            #expect(refused, "the daemon did not report the failed capture: \(daemon.stderr)")
            #expect(daemon.stderr.contains("is full"), "\(daemon.stderr)")
            #expect(daemon.isRunning)

            try disk.free()
            try await harness.xclipCopy(Data("after space returned".utf8))
            #expect(try await captured(2), "capture did not resume: \(daemon.stderr)")
            try await harness.stop(daemon: daemon)
            #expect(try await harness.integrityCheck() == "ok")
            let texts = Set(try await harness.itemTexts().values.compactMap { $0 })
            #expect(texts.isSuperset(of: ["before the disk filled", "after space returned"]), "\(texts)")
        }
    }
}
