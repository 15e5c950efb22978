import Foundation
import PasteboardModel
import PasteboardTestSupport
import Testing
import X11Backend

#if canImport(Glibc)
    import Glibc
#endif

extension X11IntegrationTests {
    /// Selection owners that misbehave — never answer, answer with the wrong type, stall or die in the middle of
    /// INCR, offer a gibibyte or ten thousand targets, send invalid UTF-8 — and a real `pb daemon` that must stay
    /// responsive (the next `xclip` copy is in the history within 2 s) with bounded memory (its peak resident size,
    /// VmHWM, stays under 150 MB), never recording garbage.
    ///
    /// The owner is `Tests/Fixtures/x11-test-owner.c` with its hostile options (see the comment at its top).
    @Suite struct HostileOwners {
        let session: X11Session

        init() async throws {
            session = try await X11Session()
        }

        /// The most a daemon may hold at its peak while a hostile owner runs.
        static let memoryLimit = 150 << 20

        // MARK: - Never answering, answering wrongly

        @Test func ownerThatNeverAnswers() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(["--stall"])
            try await Task.sleep(for: .milliseconds(300))  // the daemon now waits for TARGETS
            try await expectResponsive(daemon, after: owner, "never answers")
            #expect(try await session.history().count == 1, "only the probe is recorded")
        }

        /// Replies whose type or format is not what was asked for: nothing from them is recorded as content.
        static let wrongReplies: [(name: String, arguments: [String])] = [
            ("text as 32-bit INTEGERs", ["--reply-type", "INTEGER", "--reply-format", "32"]),
            ("text as 16-bit ATOMs", ["--reply-type", "ATOM", "--reply-format", "16"]),
            ("TARGETS as a STRING", ["--targets-type", "STRING"]),
        ]

        @Test(arguments: 0..<wrongReplies.count)
        func ownerThatAnswersWithTheWrongType(_ index: Int) async throws {
            let (name, arguments) = Self.wrongReplies[index]
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(arguments, text: "wrongly typed text")
            // The owner answers at once: give the daemon time to read (and refuse) what it got.
            try await Task.sleep(for: .milliseconds(500))
            try await expectResponsive(daemon, after: owner, name)
            let entries = try await session.history()
            #expect(entries.count == 1, "\(name): recorded \(entries.map(\.preview)); daemon log: \(daemon.stderr)")
        }

        /// TARGETS naming atoms the X server never handed out (every name lookup fails), besides a real target.
        @Test func ownerThatListsBogusAtoms() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(["--bogus-targets", "4000"], text: "beside bogus atoms")
            let found = try await session.waitForEntry(within: .seconds(10)) { $0.preview == "beside bogus atoms" }
            #expect(found != nil, "the real target was not recorded; daemon log: \(daemon.stderr)")
            try await expectResponsive(daemon, after: owner, "bogus atoms")
        }

        // MARK: - INCR: stalls, floods, deaths

        @Test func ownerThatStallsInTheMiddleOfIncr() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(
                ["--incr-threshold", "65536", "--incr-stall-after", "3"], payload: Payloads.largeText(count: 2 << 20))
            let gaveUp = try await eventually(within: .seconds(10)) { daemon.stderr.contains("stalled on UTF8_STRING") }
            #expect(gaveUp, "the daemon did not give up on the stalled transfer; its log: \(daemon.stderr)")
            try await expectResponsive(daemon, after: owner, "stalls in INCR")
            #expect(try await session.history().count == 1, "nothing partial is recorded")
        }

        /// An INCR transfer announced as 1 GiB is refused at the announcement: not one chunk is read.
        @Test func ownerThatOffersOneGibibyte() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(
                ["--endless", "--incr-announce", String(1 << 30), "--incr-threshold", "4194304"])
            let refused = try await eventually(within: .seconds(10)) {
                daemon.stderr.contains("UTF8_STRING exceeds the size limit")
            }
            #expect(refused, "the daemon did not refuse 1 GiB; its log: \(daemon.stderr)")
            try await expectResponsive(daemon, after: owner, "offers 1 GiB")
            #expect(try await session.history().count == 1)
        }

        /// An owner that announces a few bytes and then streams chunks forever (the INCR size is only a lower
        /// bound). The daemon stops at its per-representation limit (256 MiB), so this is the one case where it
        /// holds more than `memoryLimit` for a moment; afterwards the memory is returned.
        @Test func ownerThatStreamsForeverUnderASmallAnnouncement() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(
                ["--endless", "--incr-announce", "4096", "--incr-threshold", "4194304"])
            let stopped = try await eventually(within: .seconds(25), every: .milliseconds(100)) {
                daemon.stderr.contains("UTF8_STRING exceeds the size limit")
            }
            #expect(stopped, "the daemon did not stop an endless transfer; its log: \(daemon.stderr.suffix(1000))")
            try await Task.sleep(for: .milliseconds(200))
            let memory = try #require(Memory(pid: daemon.pid))
            // 256 MiB received once (never copied per chunk) plus Xlib's buffers: bounded by the limit, not by
            // `memoryLimit`.
            #expect(memory.peak < 448 << 20, "peak resident size \(memory.peak >> 20) MiB")
            #expect(memory.resident < Self.memoryLimit, "the daemon kept \(memory.resident >> 20) MiB after giving up")
            try await expectResponsive(daemon, after: owner, "streams forever", peakLimit: nil)
        }

        @Test func ownerThatDiesInTheMiddleOfIncr() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(
                ["--incr-threshold", "65536", "--die-after-chunks", "3"], payload: Payloads.largeText(count: 2 << 20))
            let exit = try await owner.waitForExit(timeout: .seconds(10))
            #expect(exit == .init(status: 3, wasSignalled: false), "the owner should die mid-transfer: \(owner.stderr)")
            let noticed = try await eventually(within: .seconds(5)) { daemon.stderr.contains("refused UTF8_STRING") }
            #expect(noticed, "the daemon did not notice the owner dying; its log: \(daemon.stderr)")
            // Nothing of the half transfer is kept alive on the clipboard.
            let paste = try await session.xclipPaste()
            #expect(!paste.succeeded || paste.stdout.isEmpty, "the clipboard serves something: \(paste)")
            try await expectResponsive(daemon, after: owner, "dies in INCR")
            #expect(try await session.history().count == 1)
        }

        // MARK: - Many targets, invalid text, huge properties

        /// Ten thousand targets: the list is refused as a whole (no real application offers more than a few dozen).
        @Test func ownerThatOffersTenThousandTargets() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(["--many-targets", "10000"], text: "one of 10001")
            let refused = try await eventually(within: .seconds(10)) {
                daemon.stderr.contains("TARGETS exceeds the size limit")
            }
            #expect(refused, "the daemon did not refuse 10,000 targets; its log: \(daemon.stderr.suffix(1000))")
            try await expectResponsive(daemon, after: owner, "10,000 targets")
            #expect(try await session.history().count == 1)
        }

        /// A thousand targets are read, but only the first 64 worth keeping are fetched.
        @Test func ownerThatOffersAThousandTargets() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(["--many-targets", "1000"], text: "one of 1001")
            let found = try await session.waitForEntry(within: .seconds(15)) { $0.preview == "one of 1001" }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr.suffix(1000))")
            #expect(entry.types.count == 64, "\(entry.types.count) representations")
            #expect(entry.types.first == "public.utf8-plain-text")
            try await expectResponsive(daemon, after: owner, "1,000 targets")
        }

        @Test func ownerThatSendsInvalidUTF8AsUTF8String() async throws {
            let daemon = try await session.startDaemon()
            // Stray continuation bytes, an overlong form, a surrogate, a code point above U+10FFFF, a cut sequence.
            let invalid = Data([
                0x62, 0x61, 0x64, 0x20, 0x80, 0xBF, 0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80,
                0x20, 0xE2, 0x82,
            ])
            let owner = try await session.startHostileOwner([], payload: invalid)
            let found = try await session.waitForEntry(within: .seconds(10)) { $0.preview.hasPrefix("bad") }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr)")
            #expect(entry.size == invalid.count)
            #expect(try await session.pbSucceeding(["decode", String(entry.id)]).stdout == invalid, "kept byte-exact")
            let export = try await session.pbSucceeding(["export"])
            #expect(export.output.contains("\"base64\""), "invalid UTF-8 is exported as base64: \(export.output)")
            try await expectResponsive(daemon, after: owner, "invalid UTF-8")
        }

        /// A WM_CLASS of 64 MiB on the owner's window (the daemon reads it to name the source): not read; the
        /// owner's process name (X-Resource and /proc) stands in.
        @Test func ownerWithAHugeWindowClass() async throws {
            let daemon = try await session.startDaemon()
            let owner = try await session.startHostileOwner(
                ["--huge-wm-class", String(64 << 20), "--incr-threshold", "8388608"], text: "huge class")
            let found = try await session.waitForEntry(within: .seconds(15)) { $0.preview == "huge class" }
            let entry = try #require(found, "not recorded; daemon log: \(daemon.stderr)")
            // A 64 MiB WM_CLASS is no application name: the process the X server knows behind the owner names it.
            #expect(entry.source == "x11-test-owner", "a 64 MiB WM_CLASS is no application name")
            try await expectResponsive(daemon, after: owner, "huge WM_CLASS")
        }

        /// An owner that keeps appending to its reply long after the daemon gave up on it: the next capture gets
        /// another property, so none of those bytes end up in the next copy.
        @Test func ownerThatKeepsWritingAfterTheDaemonGaveUp() async throws {
            let daemon = try await session.startDaemon()
            // 4 KiB appends up to 200 MiB: far slower than the daemon's 1.5 s patience, and frequent enough that one
            // lands between the next owner's reply and the daemon's read whenever the property is shared.
            let owner = try await session.startHostileOwner([
                "--huge-property", String(200 << 20), "--incr-threshold", "4096",
            ])
            let gaveUp = try await eventually(within: .seconds(10)) { daemon.stderr.contains("stalled on UTF8_STRING") }
            #expect(gaveUp, "the daemon did not give up; its log: \(daemon.stderr)")
            try await Task.sleep(for: .seconds(3.5))  // past the plain quarantine of an abandoned property
            let probe = "probe after the appender " + UUID().uuidString
            try await session.xclipCopy(probe)
            let found = try await session.waitForEntry(within: .seconds(5)) { $0.preview.hasPrefix("probe after") }
            let entry = try #require(found, "the probe was not recorded; daemon log: \(daemon.stderr)")
            #expect(entry.size == probe.utf8.count, "the probe picked up the other owner's bytes: \(entry.size) bytes")
            #expect(entry.preview == probe)
            try await expectMemoryBounded(daemon, "keeps appending")
            _ = owner
            try await session.stop(daemon: daemon)
        }

        // MARK: - The capture engine's limits, small enough to reach

        /// With a 1 MiB limit: a plain reply of 8 MiB, an honest INCR announcement of 4 MiB, and an INCR stream
        /// that announces 100 bytes and sends 4 MiB are all refused as too large, never read whole.
        static let oversizedReplies: [(name: String, arguments: [String], payload: Int)] = [
            ("one 8 MiB property", ["--huge-property", String(8 << 20), "--incr-threshold", "1048576"], 16),
            ("INCR announcing 4 MiB", ["--incr-threshold", "65536"], 4 << 20),
            (
                "INCR announcing 100 bytes, sending 4 MiB", ["--incr-threshold", "65536", "--incr-announce", "100"],
                4 << 20
            ),
        ]

        @Test(arguments: 0..<oversizedReplies.count)
        func captureEngineRefusesRepliesOverItsLimit(_ index: Int) async throws {
            let (name, arguments, size) = Self.oversizedReplies[index]
            _ = try await session.startHostileOwner(arguments, payload: Payloads.largeText(count: size))
            let display = try #require(session.sandbox.display?.name)
            let clipboard = try X11Clipboard(displayName: display, watch: [])
            clipboard.limits.maxRepresentationBytes = 1 << 20
            clipboard.limits.stallTimeout = 10  // a loaded machine must not turn this into a stall
            let result = clipboard.read(.clipboard, timeout: 20)
            guard case .failed(.tooLarge(let target)) = result else {
                Issue.record("\(name): expected 'too large', got \(result)")
                return
            }
            #expect(target == "UTF8_STRING")
        }

        @Test func captureEngineStoresNoWidenedThirtyTwoBitReplies() async throws {
            _ = try await session.startHostileOwner(["--reply-type", "INTEGER", "--reply-format", "32"], text: "abcd")
            let display = try #require(session.sandbox.display?.name)
            let clipboard = try X11Clipboard(displayName: display, watch: [])
            let result = clipboard.read(.clipboard, timeout: 10)
            guard case .failed(.empty) = result else {
                Issue.record("a 32-bit reply must not become text; got \(result)")
                return
            }
        }

        // MARK: - Helpers

        /// Copies a fresh text with `xclip` and expects it in `pb history` within 2 s; then expects the daemon's
        /// peak memory under `peakLimit`, and stops the daemon (which must exit cleanly).
        func expectResponsive(
            _ daemon: ChildProcess, after owner: ChildProcess, _ name: String,
            peakLimit: Int? = X11IntegrationTests.HostileOwners.memoryLimit,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            #expect(daemon.isRunning, "\(name): the daemon died: \(daemon.stderr)", sourceLocation: sourceLocation)
            let probe = "probe after '\(name)' " + UUID().uuidString
            let started = ContinuousClock.now
            try await session.xclipCopy(probe)
            let found = try await session.waitForEntry(within: .seconds(2)) { $0.preview == probe }
            let elapsed = ContinuousClock.now - started
            #expect(
                found != nil,
                "\(name): the next copy was not recorded within 2 s; daemon log: \(daemon.stderr.suffix(1500))",
                sourceLocation: sourceLocation)
            if let peakLimit {
                try await expectMemoryBounded(daemon, name, limit: peakLimit, sourceLocation: sourceLocation)
            }
            if let memory = Memory(pid: daemon.pid) {
                print(
                    "hostile owner '\(name)': next copy recorded after \(elapsed); "
                        + "daemon peak \(memory.peak >> 20) MiB, now \(memory.resident >> 20) MiB")
            }
            _ = owner  // the owner lives until here (the sandbox stops it)
            try await session.stop(daemon: daemon, sourceLocation: sourceLocation)
        }

        func expectMemoryBounded(
            _ daemon: ChildProcess, _ name: String, limit: Int = X11IntegrationTests.HostileOwners.memoryLimit,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let memory = try #require(
                Memory(pid: daemon.pid), "no /proc status for the daemon", sourceLocation: sourceLocation)
            #expect(
                memory.peak < limit, "\(name): the daemon's peak resident size was \(memory.peak >> 20) MiB",
                sourceLocation: sourceLocation)
        }
    }
}

extension X11Session {
    /// Starts `x11-test-owner` with hostile `arguments`, offering UTF8_STRING (`payload`, or `text`), and waits
    /// until it owns CLIPBOARD.
    fileprivate func startHostileOwner(_ arguments: [String], text: String = "hello", payload: Data? = nil)
        async throws -> ChildProcess
    {
        let file = try sandbox.file(payload ?? Data(text.utf8))
        // `executable` finds the C source from the path of its caller's file, which it expects in Support/.
        let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/X")
        let owner = try sandbox.launch(
            try TestOwner.executable(filePath: support.path).path, arguments + ["--target", "UTF8_STRING=\(file.path)"])
        let ready = try await eventually(within: .seconds(20), every: .milliseconds(5)) {
            owner.stdout.starts(with: Data("ready ".utf8)) || !owner.isRunning
        }
        guard ready, owner.stdout.starts(with: Data("ready ".utf8)) else {
            owner.terminate(grace: .milliseconds(200))
            throw SetupFailure(
                "x11-test-owner \(arguments) did not take the selection: "
                    + (owner.result.map(\.description) ?? owner.stderr))
        }
        return owner
    }
}
