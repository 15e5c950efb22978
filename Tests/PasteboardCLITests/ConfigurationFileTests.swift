import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The configuration file: mistakes name the file and line and stop every command that uses the store.
@Suite struct ConfigurationFileTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test(arguments: [["history"], ["paste"], ["copy"], ["stats"], ["prune"]])
    func unknownKeyNamesTheFileAndLine(arguments: [String]) async throws {
        try sandbox.writeConfig("# my settings\nmax-items = 100\nmax-itmes = 5\n")
        let result = try await sandbox.run(arguments, stdin: Data("text".utf8))
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == [
            "Error: \(sandbox.configURL.path):3: unknown setting 'max-itmes'. Did you mean 'max-items'? The settings are: "
                + "max-items, max-bytes, max-age, ignore-app, ignore-type, drop-type, ignore-text, max-item-size, primary, "
                + "ask-app, ask-type, ask-timeout, take-over-delay, ocr, ocr-languages, sync-max-item-size, sync-ignore-app, sync-ignore-type, "
                + "sync-clipboard, syncthing-url, syncthing-api-key, syncthing-folder."
        ])
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        ("max-items = lots", "max-items needs a whole number of at least 1 (pinned items are always kept). To keep no history at all, stop the daemon instead."),
        ("max-bytes = huge", "max-bytes needs a size like 500M or 2G."),
        ("max-age = forever", "max-age: a duration is a positive number with a unit (30s, 5m, 2h, 7d, 4w), at most 100 years."),
        ("just some words", "expected 'key = value', found 'just some words'."),
    ])
    func badValuesNameTheFileAndLine(line: String, message: String) async throws {
        try sandbox.writeConfig("max-items = 10\n\(line)\n")
        let result = try await sandbox.run(["history"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: \(sandbox.configURL.path):2: \(message)"])
    }

    @Test func doctorReportsTheProblem() async throws {
        try sandbox.writeConfig("max-age = 30d\nmax_bytes = 1G\n")
        let result = try await sandbox.run(["doctor"])
        #expect(result.status == 1, "\(result)")
        #expect(result.outputLines.contains {
            $0.hasPrefix("config:   PROBLEM: \(sandbox.configURL.path):2: unknown setting 'max_bytes'.")
        }, "\(result)")
        #expect(result.errorLines == ["Error: 1 problem found."])
    }

    @Test func validConfigurationAppliesRetention() async throws {
        try sandbox.writeConfig("max-items = 2   # keep it small\n\nmax-age = 90d\n")
        for text in ["c1", "c2", "c3"] { try await sandbox.copy(text) }
        #expect(try await sandbox.history().map(\.preview) == ["c3", "c2"])
        let doctor = try await sandbox.run(["doctor"])
        #expect(doctor.status == 0, "\(doctor)")
        #expect(doctor.outputLines.last == "All good.")
    }

    @Test func doctorSaysWhetherPrimaryIsRecorded() async throws {
        let off = try await sandbox.run(["doctor"])
        #expect(off.outputLines.contains(
            "primary:  not recorded, only CLIPBOARD (set primary = on in the configuration to record it)"), "\(off)")
        try sandbox.writeConfig("primary = on\n")
        let on = try await sandbox.run(["doctor"])
        #expect(on.outputLines.contains("primary:  recorded too (primary = on)"), "\(on)")
    }

    @Test func explicitConfigPathIsHonoured() async throws {
        let path = try sandbox.file("custom.conf", Data("max-itemz = 3\n".utf8)).path
        let result = try await sandbox.run(["history"], environment: ["PB_CONFIG": path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("Error: \(path):1: unknown setting 'max-itemz'."), "\(result)")
    }

    /// Issue 27, finding 12: a named pipe as the configuration file made every `pb` command block opening it. It is
    /// opened without blocking and refused, as is any other file that is not a regular one.
    @Test func aNamedPipeAsTheConfigurationIsRefusedWithoutHanging() async throws {
        let directory = sandbox.configURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        #expect(mkfifo(sandbox.configURL.path, 0o600) == 0)
        for arguments in [["history"], ["copy"], ["doctor"], ["paste"]] {
            // A run that hangs is killed after the timeout and recorded as an issue.
            let result = try await sandbox.run(arguments, stdin: Data("text".utf8), timeout: .seconds(20))
            #expect(result.status == 1, "pb \(arguments): \(result)")
            let shown = result.stderr + result.output
            #expect(
                shown.contains("\(sandbox.configURL.path): is a named pipe (FIFO), not a regular file"),
                "pb \(arguments): \(result)")
        }
    }
}
