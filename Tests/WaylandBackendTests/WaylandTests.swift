import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon on a real Wayland compositor (headless sway, wlr data-control), driven by real clients: wl-copy,
/// wl-paste, a GTK 4 program, and a scriptable source for hostile behaviour. Serialized: one seat, one clipboard.
@Suite(.serialized, .timeLimit(.minutes(2))) struct WaylandTests {
    @Test func textCopiedWithWlCopyIsRecordedAndPasted() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        try session.wlCopy(Data("hello from wl-copy".utf8))

        let items = try await session.waitForHistory(count: 1)
        #expect(items.first?["preview"] as? String == "hello from wl-copy", "\(items); \(daemon.stderr)")
        let paste = try await session.pb(["paste"])
        #expect(paste.succeeded && paste.output == "hello from wl-copy", "\(paste)")
        let doctor = try await session.pb(["doctor"])
        #expect(doctor.output.contains("backend:  wayland"), "\(doctor)")
        try await session.stop(daemon: daemon)
    }

    @Test func gtkHTMLAndTextAreBothKeptAndStillServedAfterTheSourceExits() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let owner = try await session.gtkCopy(["--html", "<b>bold</b> words", "--text", "bold words"])

        let items = try await session.waitForHistory(count: 1)
        let types = items.first?["types"] as? [String] ?? []
        #expect(types.contains("public.html") && types.contains("public.utf8-plain-text"), "\(items); \(daemon.stderr)")

        owner.terminate(grace: .seconds(2))
        #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
        let html = try await session.wlPaste(type: "text/html")
        #expect(html.succeeded && html.output == "<b>bold</b> words", "\(html)")
        let text = try await session.wlPaste(type: "text/plain;charset=utf-8")
        #expect(text.succeeded && text.output == "bold words", "\(text)")
        let offered = try await session.wlTypes()
        #expect(offered.contains("text/html") && offered.contains("text/plain"), "\(offered)")
        #expect(try await session.history().count == 1, "serving the item must not record it again")
        try await session.stop(daemon: daemon)
    }

    /// An application that replaces its own copy destroys its old source first, so the compositor reports the
    /// clipboard empty for a moment. The daemon taking it over in that moment made the compositor reject the
    /// application's next copy (every second copy was lost). The same four copies, with and without the daemon,
    /// must end the same: each on the clipboard, and with the daemon each in the history once.
    @Test(arguments: [false, true]) func applicationReplacingItsOwnCopyLosesNoneOfFourCopies(withDaemon: Bool)
        async throws
    {
        let session = try await WaylandSession()
        let daemon = withDaemon ? try await session.startDaemon() : nil
        let (window, keyboard) = try await session.gtkCopier()
        defer { keyboard.terminate(grace: .seconds(1)) }
        var pasted: [String] = []
        for count in 1...4 {
            try await session.pressToCopy(window, count: count)
            // Longer than the take-over grace (CaptureRules.defaultTakeOverDelay, 0.2 s): a daemon that took the
            // clipboard over would have done so by now.
            try await Task.sleep(for: .milliseconds(500))
            pasted.append(try await session.wlPaste(type: "text/plain;charset=utf-8").output)
        }
        #expect(pasted == ["copy 1", "copy 2", "copy 3", "copy 4"], "\(daemon?.stderr ?? "")")
        if let daemon {
            let items = try await session.waitForHistory(count: 4)
            #expect(items.compactMap { $0["preview"] as? String } == ["copy 4", "copy 3", "copy 2", "copy 1"], "\(items)")
            #expect(!daemon.stderr.contains("now serving its content"), "the application never left: \(daemon.stderr)")
            // Once the application exits, the daemon serves its last copy.
            window.terminate(grace: .seconds(2))
            #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
            let html = try await session.wlPaste(type: "text/html")
            #expect(html.output == "<b>copy 4</b>", "\(html)")
            try await session.stop(daemon: daemon)
        } else {
            window.terminate(grace: .seconds(2))
        }
    }

    @Test func gtkPictureIsKeptAsPNG() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let owner = try await session.gtkCopy(["--noise", "64x48"])

        let items = try await session.waitForHistory(count: 1)
        let types = items.first?["types"] as? [String] ?? []
        #expect(types.contains("public.png"), "\(items); \(daemon.stderr)")
        owner.terminate(grace: .seconds(2))
        #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
        let png = try await session.wlPaste(type: "image/png")
        #expect(png.succeeded && png.stdout.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(png.status) \(png.stderr)")
        try await session.stop(daemon: daemon)
    }

    @Test func pngIsKeptByteExactAndServedByteExactAfterTheSourceExits() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let png = Payloads.png
        let source = try session.wlCopy(png, type: "image/png")

        let items = try await session.waitForHistory(count: 1)
        #expect((items.first?["types"] as? [String])?.first == "public.png", "\(items); \(daemon.stderr)")
        source.terminate(grace: .seconds(2))
        #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
        let pasted = try await session.wlPaste(type: "image/png")
        #expect(pasted.succeeded && pasted.stdout == png, "\(pasted.stdout.count) bytes, \(pasted.stderr)")
        try await session.stop(daemon: daemon)
    }

    @Test func twentyMebibytesAreReadAndServedWhole() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let payload = randomBytes(count: 20 << 20, seed: 20)
        let source = try session.wlCopy(payload, type: "application/octet-stream")

        let items = try await session.waitForHistory(count: 1, timeout: .seconds(30))
        #expect(items.first?["size"] as? Int == 20 << 20, "\(items); \(daemon.stderr)")
        source.terminate(grace: .seconds(2))
        #expect(try await session.waitForLog(daemon, "now serving its content"), "\(daemon.stderr)")
        let pasted = try await session.wlPaste(type: "application/octet-stream")
        #expect(pasted.succeeded && pasted.stdout == payload, "\(pasted.stdout.count) bytes, \(pasted.stderr)")
        try await session.stop(daemon: daemon)
    }

    @Test func hundredCopiesInARowAreAllAccountedForAndTheLastIsKept() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        var previous: ChildProcess?
        for index in 1...100 {
            let source = try session.wlCopy(Data("change \(index)".utf8))
            // Paced by the compositor: a copy has replaced the one before once that one exits (it was cancelled).
            if let previous { _ = try await previous.waitForExit(timeout: .seconds(5)) }
            previous = source
        }
        let items = try await session.waitForHistory(count: 100, timeout: .seconds(20))
        let log = daemon.stderr
        let recorded = log.components(separatedBy: "recorded item").count - 1
        let replaced = log.components(separatedBy: "a newer copy replaced one").count - 1
        #expect(items.first?["preview"] as? String == "change 100", "\(items.prefix(3))")
        // Every change is recorded, or reported as replaced while it was read (its source was gone by then).
        // (A source cancelled before it answered gives nothing, which is not logged: a few may be neither.)
        #expect(recorded + replaced >= 95, "recorded \(recorded), replaced \(replaced)\n\(log.suffix(3000))")
        #expect(recorded >= 90, "recorded only \(recorded) of 100\n\(log.suffix(3000))")
        try await session.stop(daemon: daemon)
    }

    @Test func secretHintedOfferLeavesNoTraceInAnyStoreFile() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let secret = "hunter2-\(UUID().uuidString)"
        let source = try await session.testSource([
            "--type", "text/plain;charset=utf-8", "--type", "x-kde-passwordManagerHint", "--data", secret,
        ])
        #expect(try await session.waitForLog(daemon, "skipped a concealed (secret) offer"), "\(daemon.stderr)")
        source.terminate(grace: .seconds(2))
        // Something recorded after it, so the store has been written since.
        try session.wlCopy(Data("after the secret".utf8))
        let items = try await session.waitForHistory(count: 1)
        #expect(items.count == 1 && items.first?["preview"] as? String == "after the secret", "\(items)")
        try await session.stop(daemon: daemon)
        let needle = Data(secret.utf8)
        let files = try session.storeFiles()
        #expect(!files.isEmpty)
        for file in files {
            #expect(file.data.range(of: needle) == nil, "the secret is in \(file.path)")
        }
        #expect(!daemon.stderr.contains(secret))
    }

    /// Firefox hands a page's own types over inside `application/x-moz-custom-clipdata`: a web vault's copy is
    /// marked secret only there. The daemon reads the container first and, finding the marker, nothing else; the
    /// next copy, unmarked, is recorded whole.
    @Test func pageMarkedSecretInsideFirefoxsContainerIsNeitherReadNorKept() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        func utf16(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        let marked = Data([0, 0, 0, 1, 0, 0, 0, 0x32] + utf16("x-kde-passwordmanagerhint") + [0, 0, 0, 0x0C] + utf16("secret") + [0, 0, 0, 0])
        let container = session.sandbox.root.appendingPathComponent("custom-clipdata")
        try marked.write(to: container)
        let source = try await session.testSource([
            "--type", "text/plain;charset=utf-8", "--type", "text/html", "--data", "vault password hunter2",
            "--file", "application/x-moz-custom-clipdata", container.path,
        ])
        #expect(try await session.waitForLog(daemon, "skipped a concealed (secret) offer"), "\(daemon.stderr)")
        let requests = String(decoding: source.stdout, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("sent") }
        #expect(requests == ["sent application/x-moz-custom-clipdata"], "only the container is read: \(requests)")
        for file in try session.storeFiles() {
            #expect(file.data.firstRange(of: Data("hunter2".utf8)) == nil, "the secret is in \(file.path)")
        }

        let ordinary = Data([0, 0, 0, 1, 0, 0, 0, 8] + utf16("x-id") + [0, 0, 0, 2] + utf16("7") + [0, 0, 0, 0])
        try ordinary.write(to: container)
        let next = try await session.testSource([
            "--type", "text/plain;charset=utf-8", "--data", "an ordinary page",
            "--file", "application/x-moz-custom-clipdata", container.path,
        ])
        let items = try await session.waitForHistory(count: 1)
        #expect(items.first?["preview"] as? String == "an ordinary page", "\(items); \(daemon.stderr)")
        #expect(try await session.history().count == 1, "the secret copy was recorded")
        _ = source
        next.terminate(grace: .seconds(1))
        try await session.stop(daemon: daemon)
    }

    @Test func sourceThatNeverWritesDoesNotStopTheNextCopy() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let stalled = try await session.testSource(["--never-write", "--data", "never"])
        let copied = Date()
        try session.wlCopy(Data("the next copy".utf8))

        let items = try await session.waitForHistory(count: 1)
        #expect(items.first?["preview"] as? String == "the next copy", "\(items); \(daemon.stderr)")
        // Well within the 1.5 s stall timeout: the new copy is read at once, beside the stalled read, which is
        // given up when its time is over. Timed by the daemon's record of it, not by when this test looked.
        let took = try #require(captureDate(of: items.first)).timeIntervalSince(copied)
        #expect(took < 1.4, "recorded \(took) s after the copy; \(daemon.stderr)")
        #expect(
            try await session.waitForLog(daemon, "a newer copy replaced one still being read", timeout: .seconds(5)),
            "\(daemon.stderr)")
        #expect(try await session.history().count == 1)
        _ = stalled
        try await session.stop(daemon: daemon)
    }

    @Test func stalledSourceIsGivenUpAfterTheStallTimeout() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let stalled = try await session.testSource(["--never-write"])
        // The stall timeout is 1.5 s; the rest is room for a full parallel run on two cores.
        #expect(try await session.waitForLog(daemon, "stalled on", timeout: .seconds(20)), "\(daemon.stderr)")
        #expect(stalled.isRunning)
        let status = try await session.pb(["doctor"])
        #expect(status.output.contains("daemon:   running"), "the daemon answers meanwhile: \(status)")
        try await session.stop(daemon: daemon)
    }

    @Test func daemonMemoryStaysBoundedWhileASourceStreamsForever() async throws {
        let session = try await WaylandSession()
        let daemon = try await session.startDaemon()
        let source = try await session.testSource(["--write-forever", "--type", "application/octet-stream"])
        var peak = 0
        let gaveUp = try await eventually(within: .seconds(60), every: .milliseconds(100)) {
            peak = max(peak, Self.residentBytes(of: daemon.pid))
            return daemon.stderr.contains("exceeds the size limit")
        }
        #expect(gaveUp, "\(daemon.stderr.suffix(2000))")
        for _ in 0..<10 {
            peak = max(peak, Self.residentBytes(of: daemon.pid))
            try await Task.sleep(for: .milliseconds(100))
        }
        // The limit of one representation is 256 MiB: what was read beyond it is never kept.
        #expect(peak < 400 << 20, "peak resident size \(peak >> 20) MiB")
        #expect(try await session.history().isEmpty)
        source.terminate(grace: .seconds(1))
        try await session.stop(daemon: daemon)
    }

    /// The resident set size of `pid` (VmRSS), in bytes; 0 when unknown.
    static func residentBytes(of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return kilobytes * 1024
    }
}
