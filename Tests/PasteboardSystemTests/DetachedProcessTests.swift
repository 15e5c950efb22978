import Foundation
import PasteboardControl
import PasteboardSystem
import PasteboardTestSupport
import Testing

/// The one spawn of processes that outlive pb (the clipboard owner, the deferred paste, the resident popup), with
/// real shells as the children.
@Suite(.timeLimit(.minutes(1))) struct DetachedProcessTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("detached-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Polls for a file's contents to become `expected`, for at most 5 s.
    func contents(of file: String, becoming expected: String) async throws -> String {
        var text = ""
        for _ in 0..<100 {
            text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            if text == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return text
    }

    @Test func bytesReachStandardInputBeforeReady() throws {
        let out = path("input")
        try DetachedProcess.start(
            "/bin/sh", arguments: ["-c", "cat > \"$0\"; echo ready", out], environment: [:],
            input: .bytes(Data("héllo\u{0}bytes".utf8)), readyWithin: 5000)
        // It said ready only after cat had read everything to the end of its input.
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("héllo\u{0}bytes".utf8))
    }

    @Test func itRunsInASessionOfItsOwnWithExactlyTheGivenEnvironment() async throws {
        let out = path("session")
        let pid = try DetachedProcess.start(
            "/bin/sh", arguments: ["-c", "echo \"$(cut -d' ' -f6 /proc/$$/stat) $ONLY ${HOME:-unset}\" > \"$0.part\"; mv \"$0.part\" \"$0\"", out],
            environment: ["ONLY": "this", "PATH": "/usr/bin:/bin"])
        let text = try await contents(of: out, becoming: "\(pid) this unset\n")
        #expect(text == "\(pid) this unset\n", "session id = its own pid, and no other variables")
    }

    @Test func standardErrorGoesToTheLogTruncatedEachTime() async throws {
        let log = path("paste.log")
        try Data(String(repeating: "stale line\n", count: 50).utf8).write(to: URL(fileURLWithPath: log))
        try DetachedProcess.start(
            "/bin/sh", arguments: ["-c", "echo 'pb: it failed' >&2"], environment: [:], errorLog: log)
        let text = try await contents(of: log, becoming: "pb: it failed\n")
        #expect(text == "pb: it failed\n")
    }

    @Test func aNewLogIsPrivate() async throws {
        let log = path("new.log")
        try DetachedProcess.start("/bin/sh", arguments: ["-c", "echo x >&2"], environment: [:], errorLog: log)
        _ = try await contents(of: log, becoming: "x\n")
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aChildThatExitsWithoutReadyIsReportedWithWhatItSaid() throws {
        do {
            try DetachedProcess.start("/bin/sh", arguments: ["-c", "echo '  no display  '"], environment: [:],
                readyWithin: 5000)
            Issue.record("expected a failure")
        } catch {
            guard case .notReady(let text) = error.reason else { throw error }
            #expect(text == "no display")
        }
        do {
            try DetachedProcess.start("/bin/sh", arguments: ["-c", "exit 3"], environment: [:], readyWithin: 5000)
            Issue.record("expected a failure")
        } catch {
            guard case .notReady(let text) = error.reason else { throw error }
            #expect(text == "")
        }
    }

    @Test func aChildThatNeverSaysReadyTimesOutAndIsStopped() throws {
        let marker = path("alive")
        let started = ContinuousClock.now
        var childPID: pid_t?
        do {
            try DetachedProcess.start(
                "/bin/sh", arguments: ["-c", "echo $$ > \"$0\"; exec sleep 30", marker], environment: [:],
                readyWithin: 300)
            Issue.record("expected a time-out")
        } catch {
            guard case .timedOut = error.reason else { throw error }
        }
        #expect(ContinuousClock.now - started < .seconds(3))
        // The shell wrote its pid before it was told to stop.
        let text = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        childPID = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        let pid = try #require(childPID)
        // SIGTERM was sent; it is a child of this process, so reap it and see how it ended.
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7f == SIGTERM, "ended by SIGTERM (status \(status))")
    }

    @Test func aMissingExecutableIsASpawnFailureNamingTheCall() throws {
        do {
            try DetachedProcess.start(path("nothing-here"), arguments: [], environment: [:], readyWithin: 1000)
            Issue.record("expected a failure")
        } catch {
            guard case .spawn(let cause) = error.reason else { throw error }
            #expect(cause.call == "posix_spawn")
            #expect(cause.errno == ENOENT)
        }
    }

    /// A deferred paste (`pb pick --paste` on Wayland) that fails writes why into the runtime directory's
    /// paste.log, and `pb doctor` shows it; one that has nothing to say leaves doctor silent about pastes.
    @Test func aFailedDeferredPasteIsShownByDoctor() async throws {
        let pb = try Product.pb.path()
        let runtime = RuntimeDirectory(path: path("run"))
        let environment = [
            "PB_RUNTIME_DIR": runtime.path, "XDG_DATA_HOME": path("data"), "XDG_CONFIG_HOME": path("config"),
            "HOME": path("home"), "PATH": "/usr/bin:/bin",
        ]
        // No display: the typing process cannot paste, and says so on its standard error.
        try DeferredPaste.start(
            executable: pb, arguments: ["__paste", "ctrl+v"], environment: environment, runtime: runtime)
        let logged = try await logText { (try? String(contentsOfFile: runtime.pasteLogPath, encoding: .utf8)) ?? "" }
        #expect(logged.contains("not pasted"), "\(logged)")

        let doctor = try await ChildProcess(
            executable: pb, arguments: ["doctor"], environment: environment, stdin: nil,
            ioDirectory: directory
        ).finish(timeout: .seconds(20))
        let lines = String(decoding: doctor.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        let pasteLine = lines.first { $0.hasPrefix("typing:") }
        #expect(pasteLine?.hasPrefix("typing:   the last deferred paste failed: 'The item is on") == true, "\(lines)")
        #expect(pasteLine?.contains("not pasted") == true, "\(lines)")

        try Data().write(to: URL(fileURLWithPath: runtime.pasteLogPath))
        let quiet = try await ChildProcess(
            executable: pb, arguments: ["doctor"], environment: environment, stdin: nil,
            ioDirectory: directory
        ).finish(timeout: .seconds(20))
        let quietLines = String(decoding: quiet.stdout, as: UTF8.self).split(separator: "\n")
        #expect(!quietLines.contains { $0.hasPrefix("typing:") }, "\(quietLines)")
        #expect(quietLines.last == "All good.", "\(quietLines)")
    }

    /// The log's contents once it is non-empty and ends with a newline (or after 5 s).
    func logText(_ read: () -> String) async throws -> String {
        var text = ""
        for _ in 0..<100 {
            text = read()
            if text.hasSuffix("\n") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return text
    }
}
