import Foundation
import Testing

/// Stores pb cannot use: it says so in one line, exits 1, and leaves the file exactly as it was.
@Suite struct StoreProblemTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Commands that open the store, reading or writing.
    static let storeCommands: [(arguments: [String], stdin: Data?)] = [
        (["history"], nil), (["paste"], nil), (["copy"], Data("new text".utf8)), (["stats"], nil),
        (["search", "text"], nil), (["import", "-"], Data(#"{"text":"x"}"#.utf8)), (["clear"], nil),
    ]

    @Test func fileThatIsNotSQLiteIsLeftUntouched() async throws {
        try FileManager.default.createDirectory(at: sandbox.storeDirectory, withIntermediateDirectories: true)
        let garbage = Data((0..<3000).map { _ in UInt8.random(in: 0x20...0x7E) })
        try garbage.write(to: sandbox.databaseURL)
        for (arguments, stdin) in Self.storeCommands {
            let result = try await sandbox.run(arguments, stdin: stdin)
            #expect(result.status == 1, "pb \(arguments): \(result)")
            #expect(!result.wasSignalled)
            #expect(result.errorLines.count == 1, "pb \(arguments): \(result)")
            let line = result.errorLines.first ?? ""
            #expect(line.hasPrefix("Error: "))
            #expect(line.contains(sandbox.databaseURL.path), "the message names the file: \(line)")
            #expect(line.contains("not a Pasteboard database"), "\(line)")
        }
        #expect(try Data(contentsOf: sandbox.databaseURL) == garbage)
        let doctor = try await sandbox.run(["doctor"])
        #expect(doctor.status == 1)
        #expect(doctor.outputLines.contains { $0.hasPrefix("store:    PROBLEM: ") }, "\(doctor)")
        #expect(try Data(contentsOf: sandbox.databaseURL) == garbage)
    }

    @Test func storeFromANewerVersionIsLeftUntouched() async throws {
        try await sandbox.copy("written by this version")
        try SQLiteTool.run("PRAGMA user_version = 99;", on: sandbox.databaseURL, in: sandbox)
        #expect(try SQLiteTool.run("PRAGMA user_version;", on: sandbox.databaseURL, in: sandbox) == "99")
        let before = try Data(contentsOf: sandbox.databaseURL)
        for (arguments, stdin) in Self.storeCommands {
            let result = try await sandbox.run(arguments, stdin: stdin)
            #expect(result.status == 1, "pb \(arguments): \(result)")
            #expect(result.errorLines.count == 1, "pb \(arguments): \(result)")
            let line = result.errorLines.first ?? ""
            #expect(line.contains("newer version of Pasteboard"), "\(line)")
            #expect(line.contains("schema 99"), "\(line)")
            #expect(line.contains(sandbox.databaseURL.path), "\(line)")
        }
        #expect(try Data(contentsOf: sandbox.databaseURL) == before)
        #expect(try SQLiteTool.run("PRAGMA user_version;", on: sandbox.databaseURL, in: sandbox) == "99")
    }

    @Test func dataDirectoryBelowARegularFileFailsClearly() async throws {
        // Root ignores permission bits, so an unwritable place is simulated by a path through a file.
        let blocker = try sandbox.file("blocker", Data("a file, not a directory\n".utf8))
        let dataHome = blocker.appendingPathComponent("data").path
        for (arguments, stdin) in Self.storeCommands {
            let result = try await sandbox.run(arguments, stdin: stdin, environment: ["XDG_DATA_HOME": dataHome])
            #expect(result.status == 1, "pb \(arguments): \(result)")
            #expect(!result.wasSignalled)
            #expect(result.errorLines.count == 1, "pb \(arguments): \(result)")
            let line = result.errorLines.first ?? ""
            #expect(line.hasPrefix("Error: Cannot create "), "\(line)")
            #expect(line.contains(blocker.path), "\(line)")
            #expect(line.contains("XDG_DATA_HOME"), "the message says how to fix it: \(line)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
        }
        #expect(try Data(contentsOf: blocker) == Data("a file, not a directory\n".utf8))
    }

    @Test func storeDirectoryThatIsAFileFailsClearly() async throws {
        try sandbox.file("data/pasteboard", Data("not a directory".utf8))
        let result = try await sandbox.run(["history"])
        #expect(result.status == 1, "\(result)")
        #expect(result.errorLines == ["Error: \(sandbox.storeDirectory.path) exists but is not a directory."])
    }

    @Test func storeDirectoryOverrideIsHonoured() async throws {
        let elsewhere = sandbox.root.appendingPathComponent("elsewhere")
        let copy = try await sandbox.run(["copy"], stdin: Data("moved".utf8), environment: ["PB_STORE_DIR": elsewhere.path])
        #expect(copy.status == 0, "\(copy)")
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("history.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.databaseURL.path))
        let paste = try await sandbox.run(["paste"], environment: ["PB_STORE_DIR": elsewhere.path])
        #expect(paste.stdout == Data("moved".utf8))
        #expect(try await sandbox.run(["paste"]).status == 1)
    }

    /// Issue 27, finding 12: an `XDG_DATA_HOME` that is a symbolic link to `/etc` left `/etc/pasteboard/history.sqlite`
    /// behind (SQLite then refused the path, too late). A store path through a link is refused before anything is
    /// created where it leads. (A sandbox directory stands for `/etc`: the same owner, the user's own.)
    @Test func aDataHomeThatIsASymbolicLinkCreatesNothingWhereItLeads() async throws {
        let system = sandbox.root.appendingPathComponent("system")
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        let link = sandbox.root.appendingPathComponent("data-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: system)
        for (arguments, stdin) in Self.storeCommands + [(["daemon"], nil)] {
            let result = try await sandbox.run(
                arguments, stdin: stdin, environment: ["XDG_DATA_HOME": link.path, "PB_BACKEND": "headless"],
                timeout: .seconds(20))
            #expect(result.status == 1, "pb \(arguments): \(result)")
            let line = result.errorLines.last ?? ""
            #expect(line.contains("goes through a symbolic link (\(link.path) leads to \(system.path))"), "\(result)")
            #expect(line.contains("XDG_DATA_HOME"), "\(line)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: system.path).isEmpty, "nothing created there")
        let copy = try await sandbox.run(
            ["copy"], stdin: Data("kept".utf8), environment: ["XDG_DATA_HOME": system.path])
        #expect(copy.status == 0, "the directory it led to, named without the link, is fine: \(copy)")
    }
}
