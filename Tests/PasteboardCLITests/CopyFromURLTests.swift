import Foundation
import PasteboardTestSupport
import Testing

/// `pb copy --url` against the hostile server on 127.0.0.1: what it copies, its limits, and the clear failures.
@Suite(.timeLimit(.minutes(3))) struct CopyFromURLTests {
    let sandbox: ProcessSandbox
    let server: HostileHTTPServer
    let pb: String

    init() async throws {
        sandbox = try ProcessSandbox(label: "pburl")
        server = try await HostileHTTPServer(in: sandbox)
        pb = try Product.pb.path()
    }

    /// Runs `pb ARGUMENTS` through a wrapper that prints the peak resident memory (kilobytes) of pb, which the
    /// kernel keeps as VmHWM and reports at exit (ru_maxrss of the waited child).
    func runMeasured(_ arguments: [String]) async throws -> (result: ProcessResult, peakKilobytes: Int) {
        let wrapper = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:]).returncode
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
            sys.exit(status if status >= 0 else 128 - status)
            """
        let result = try await sandbox.run("/usr/bin/python3", ["-c", wrapper, pb] + arguments, timeout: .seconds(60))
        let peak = result.stderr.split(separator: "\n").last.flatMap { Int($0) } ?? -1
        return (result, peak)
    }

    func history() async throws -> String {
        try await sandbox.run(pb, ["history"]).output
    }

    @Test func aPageBecomesTheClipboardAndAHistoryItem() async throws {
        let copy = try await sandbox.run(pb, ["copy", "--url", server.url("page.html")])
        #expect(copy.succeeded, "\(copy)")
        #expect(copy.stderr.isEmpty, "no progress without a terminal: \(copy)")
        let text = try await sandbox.run(pb, ["paste"])
        #expect(text.output == "Gzipped page body.", "\(text)")
        let html = try await sandbox.run(pb, ["paste", "--type", "html"])
        #expect(html.output.contains("<title>Hostile</title>"), "\(html)")
        let address = try await sandbox.run(pb, ["paste", "--type", "public.url"])
        #expect(address.output == server.url("page.html"))
        #expect(try await history().contains("Gzipped page body."))
    }

    @Test func anImageIsCopiedAsAnImage() async throws {
        let copy = try await sandbox.run(pb, ["copy", "--url", server.url("image.png")])
        #expect(copy.succeeded, "\(copy)")
        let types = try await sandbox.run(pb, ["paste", "--list-types"])
        #expect(types.output.hasPrefix("public.png\t"), "\(types)")
    }

    /// Finding 4: about 1 MB of gzip that inflates to 1 GiB stops at 50 MB while decoding; pb stays under 200 MB.
    @Test(arguments: ["gzip-bomb", "deflate-bomb"])
    func aCompressionBombStaysUnder200MB(path: String) async throws {
        let (result, peak) = try await runMeasured(["copy", "--url", server.url(path)])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("larger than 50 MB"), "\(result)")
        #expect(peak > 0 && peak < 200_000, "peak resident memory \(peak) kB")
        let recorded = try await history()
        #expect(recorded.isEmpty, "nothing was recorded: \(recorded)")
    }

    /// Finding 7: from the typed 127.0.0.1:PORT, a redirect to another port is refused; the same port is followed;
    /// `file://` is named, not reported as a 404.
    @Test func redirectsAreCheckedWithClearMessages() async throws {
        let other = try await HostileHTTPServer(in: sandbox)
        let refused = try await sandbox.run(pb, ["copy", "--url", server.redirect(to: other.url("text"))])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("Refused to connect to 127.0.0.1 port \(other.port)"), "\(refused)")
        let file = try await sandbox.run(pb, ["copy", "--url", server.redirect(to: "file:///etc/passwd")])
        #expect(file.status == 1, "\(file)")
        #expect(file.stderr.contains("redirected to file:///etc/passwd, which is not an http or https address"), "\(file)")
        // Not the old "The server answered 404" (the port in the address may hold those digits).
        #expect(!file.stderr.contains("answered 404"), "\(file)")
        #expect(try await history().isEmpty, "nothing was recorded")
        let followed = try await sandbox.run(pb, ["copy", "--url", server.redirect(to: server.url("text"))])
        #expect(followed.succeeded, "\(followed)")
        #expect(try await sandbox.run(pb, ["paste"]).output == "hello from the hostile server\n")
    }

    @Test(arguments: [
        (["copy", "--url", "ftp://example.com/x"], 64, "is not an http or https address"),
        (["copy", "--url", "example.com"], 64, "is not an http or https address"),
        (["copy", "--url", "http://127.0.0.1:1/x", "file.txt"], 64, "either --url or FILE"),
        (["copy", "--timeout", "5s"], 64, "--timeout applies to --url only"),
        (["copy", "--url", "http://127.0.0.1:1/x", "--timeout", "soon"], 64, "--timeout"),
        (["copy", "--url", "http://127.0.0.1:1/x"], 1, "Could not download"),
        (["copy", "--url", "http://no-such-host.invalid/x"], 1, "no-such-host.invalid"),
    ])
    func badInputFailsClearly(arguments: [String], status: Int32, message: String) async throws {
        let result = try await sandbox.run(pb, arguments)
        #expect(result.status == status, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
    }

    @Test func httpErrorsOversizeAndTimeoutsFailClearly() async throws {
        let missing = try await sandbox.run(pb, ["copy", "--url", server.url("status/404")])
        #expect(missing.status == 1 && missing.stderr.contains("The server answered 404 (Not Found)"), "\(missing)")
        let huge = try await sandbox.run(pb, ["copy", "--url", server.url("huge")])
        #expect(huge.status == 1 && huge.stderr.contains("larger than 50 MB (it declares 60 MB)"), "\(huge)")
        let started = ContinuousClock.now
        let stall = try await sandbox.run(pb, ["copy", "--url", server.url("stall"), "--timeout", "2s"])
        #expect(stall.status == 1 && stall.stderr.contains("was stopped"), "\(stall)")
        // The 2 s stall limit, not the server's 60 s of silence (with room for a loaded machine).
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try await history().isEmpty)
    }

    /// On a terminal, standard error shows how far the download is, then the line is erased and the failure said.
    @Test func progressShowsOnATerminalOnly() async throws {
        let cli = try Sandbox()
        let pbPath = TerminalSession.shellQuoted(pb)
        let address = TerminalSession.shellQuoted(server.url("stall"))
        let go = cli.root.appendingPathComponent("go").path
        let record = cli.root.appendingPathComponent("terminal.log").path
        // pb starts once everything the terminal receives is recorded, so the test reads what was drawn, not what a
        // poll of the screen happened to catch (a loaded machine missed the 12 s the progress line was up).
        let waitThenCopy = "while [ ! -e \(TerminalSession.shellQuoted(go)) ]; do sleep 0.05; done; exec \(pbPath) copy --url \(address) --timeout 3s"
        let terminal = try await TerminalSession("sh -c \(TerminalSession.shellQuoted(waitThenCopy))", sandbox: cli)
        try await terminal.run(["pipe-pane", "-t", "t", "-o", "cat >> \(TerminalSession.shellQuoted(record))"])
        #expect(FileManager.default.createFile(atPath: go, contents: Data()))
        let after = try await terminal.waitForScreen(within: .seconds(30)) { $0.contains { $0.hasPrefix("EXIT=") } }
        #expect(after.contains("EXIT=1"), "\(after)")
        #expect(after.contains { $0.contains("was stopped") }, "\(after)")
        let drawn = String(decoding: try Data(contentsOf: URL(fileURLWithPath: record)), as: UTF8.self)
        let progress = try #require(drawn.range(of: "\rDownloading: 10 B of 1.0 KB (1 %)\u{1B}[K"), "drawn: \(drawn.debugDescription)")
        let erase = try #require(drawn.range(of: "\r\u{1B}[K", range: progress.upperBound..<drawn.endIndex), "drawn: \(drawn.debugDescription)")
        #expect(drawn[erase.upperBound...].contains("was stopped"), "the failure comes after the erase: \(drawn.debugDescription)")
        #expect(!after.contains { $0.contains("Downloading:") }, "the progress line is erased: \(after)")
    }
}
