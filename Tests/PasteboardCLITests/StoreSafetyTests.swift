import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The store is trusted only when it is safe, and `pb doctor` never says "All good" when it is not, or when the
/// daemon is stuck or could not start.
@Suite struct StoreSafetyTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// `pb` commands that open the store.
    static let storeCommands: [(arguments: [String], stdin: Data?)] = [
        (["history"], nil), (["paste"], nil), (["copy"], Data("new text".utf8)), (["stats"], nil), (["clear"], nil),
    ]

    /// Every store command fails with one `Error:` line containing `fragments`, exit 1.
    func expectEveryCommandRefuses(_ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        for (arguments, stdin) in Self.storeCommands {
            let result = try await sandbox.run(arguments, stdin: stdin)
            #expect(
                result.status == 1 && !result.wasSignalled, "pb \(arguments): \(result)", sourceLocation: sourceLocation
            )
            #expect(result.errorLines.count == 1, "pb \(arguments): \(result)", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(result.stderr.contains(fragment), "pb \(arguments): \(result)", sourceLocation: sourceLocation)
            }
        }
    }

    /// `pb doctor` finds a problem on the line starting with `prefix`, and never says "All good".
    func expectDoctorFinds(_ prefix: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> PBResult
    {
        let doctor = try await sandbox.run(["doctor"])
        #expect(doctor.status == 1, "\(doctor)", sourceLocation: sourceLocation)
        #expect(!doctor.output.contains("All good"), "\(doctor)", sourceLocation: sourceLocation)
        #expect(
            doctor.outputLines.contains { $0.hasPrefix(prefix + "PROBLEM: ") }, "\(doctor)",
            sourceLocation: sourceLocation)
        return doctor
    }

    // MARK: - Owners, modes, links

    @Test func storeDirectoryAnotherUserOwnsIsRefused() async throws {
        try await sandbox.copy("mine")
        try #require(chown(sandbox.storeDirectory.path, 65534, 65534) == 0, "chown needs root (tests run as root)")
        try await expectEveryCommandRefuses([
            sandbox.storeDirectory.path, "belongs to another user (uid 65534)", "chown",
        ])
        _ = try await expectDoctorFinds("store:    ")
    }

    @Test func groupWritableStoreDirectoryIsRefusedAndLeftAsItWas() async throws {
        try await sandbox.copy("mine")
        try #require(chmod(sandbox.storeDirectory.path, 0o770) == 0)
        try await expectEveryCommandRefuses([
            sandbox.storeDirectory.path, "can be written by other users (mode 770)",
            "chmod 700 \(sandbox.storeDirectory.path)",
        ])
        _ = try await expectDoctorFinds("store:    ")
        var info = stat()
        #expect(stat(sandbox.storeDirectory.path, &info) == 0 && info.st_mode & 0o777 == 0o770)
    }

    @Test func worldWritableDatabaseFileIsRefused() async throws {
        try await sandbox.copy("mine")
        try #require(chmod(sandbox.databaseURL.path, 0o666) == 0)
        try await expectEveryCommandRefuses([sandbox.databaseURL.path, "chmod 600"])
    }

    @Test func symlinkedStoreFileIsRefusedAndItsTargetUntouched() async throws {
        try await sandbox.copy("mine")
        let moved = sandbox.root.appendingPathComponent("moved.sqlite")
        try FileManager.default.moveItem(at: sandbox.databaseURL, to: moved)
        try FileManager.default.createSymbolicLink(at: sandbox.databaseURL, withDestinationURL: moved)
        let before = try Data(contentsOf: moved)
        try await expectEveryCommandRefuses(["\(sandbox.databaseURL.path) is a symbolic link"])
        _ = try await expectDoctorFinds("store:    ")
        #expect(try Data(contentsOf: moved) == before)
    }

    /// Under `umask 000`, every directory pb creates on the way to the store (`~/.local/share/pasteboard`) is 0700.
    @Test func parentDirectoriesPbCreatesArePrivateUnderAnOpenUmask() async throws {
        let pb = try Product.pb.path()
        let shell = try await runUnderOpenUmask(pb, ["copy"], home: sandbox.root.appendingPathComponent("open-home"))
        #expect(shell.succeeded, "\(shell)")
        for relative in [".local", ".local/share", ".local/share/pasteboard"] {
            let path = sandbox.root.appendingPathComponent("open-home/" + relative).path
            var info = stat()
            #expect(stat(path, &info) == 0, "\(path) was not created")
            #expect(info.st_mode & 0o777 == 0o700, "\(relative) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        let database = sandbox.root.appendingPathComponent("open-home/.local/share/pasteboard/history.sqlite").path
        var info = stat()
        #expect(stat(database, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    /// `sh -c 'umask 000; exec pb …'` with HOME at `home` (which does not exist yet) and no XDG_DATA_HOME.
    func runUnderOpenUmask(_ pb: String, _ arguments: [String], home: URL) async throws -> ProcessResult {
        var environment = sandbox.environment
        environment["HOME"] = home.path
        environment["XDG_DATA_HOME"] = nil
        let input = try sandbox.file("io/umask-input", Data("copied under umask 000".utf8))
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "umask 000; exec \"$0\" \"$@\"", pb] + arguments,
            environment: environment, stdin: input, ioDirectory: sandbox.root.appendingPathComponent("io"))
        return try await child.finish(timeout: .seconds(30))
    }

    // MARK: - Another application's database

    @Test(arguments: [0, 7])
    func anotherApplicationsDatabaseIsNeverModified(userVersion: Int) async throws {
        try FileManager.default.createDirectory(at: sandbox.storeDirectory, withIntermediateDirectories: true)
        chmod(sandbox.storeDirectory.path, 0o700)
        try SQLiteTool.run(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('groceries'); "
                + "CREATE TABLE items(x); PRAGMA user_version = \(userVersion);",
            on: sandbox.databaseURL, in: sandbox)
        let before = try Data(contentsOf: sandbox.databaseURL)
        try await expectEveryCommandRefuses([sandbox.databaseURL.path, "another application", "left untouched"])
        _ = try await expectDoctorFinds("store:    ")
        #expect(try Data(contentsOf: sandbox.databaseURL) == before, "pb changed another application's database")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.storeDirectory.path) == ["history.sqlite"])
    }

    // MARK: - The daemon, as the doctor sees it

    /// Something listens on the control socket, takes connections and never answers (a daemon stuck in a loop).
    @Test func doctorReportsADaemonThatDoesNotAnswer() async throws {
        let listener = """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(sys.argv[1]); s.listen(1)
            print("listening", flush=True)
            held = []
            while True:
                c, _ = s.accept(); held.append(c)
            """
        let child = try ChildProcess(
            executable: "/usr/bin/python3", arguments: ["-c", listener, sandbox.socketPath], environment: [:],
            stdin: nil,
            ioDirectory: sandbox.root.appendingPathComponent("io"))
        defer { child.terminate(grace: .milliseconds(200)) }
        let listening = try await eventually(within: .seconds(10)) { child.stdout.starts(with: Data("listening".utf8)) }
        try #require(listening, "the stand-in daemon did not start: \(child.stderr)")

        let doctor = try await expectDoctorFinds("daemon:   ")
        // It gives up on the daemon after a few seconds; 20 s leaves room for a loaded machine, not for a hang.
        #expect(doctor.duration < .seconds(20), "pb doctor waited \(doctor.duration) for the stuck daemon")
        #expect(doctor.output.contains("does not answer"), "\(doctor)")
    }

    @Test func doctorReportsARuntimeDirectoryTheDaemonCannotUse() async throws {
        try #require(chown(sandbox.runtimeDirectory.path, 65534, 65534) == 0, "chown needs root (tests run as root)")
        let doctor = try await expectDoctorFinds("daemon:   ")
        #expect(doctor.output.contains("belongs to another user"), "\(doctor)")
        let daemon = try await sandbox.run(["daemon"], timeout: .seconds(15))
        #expect(daemon.status == 1, "the doctor said the daemon could not start, but it did: \(daemon)")
    }
}
