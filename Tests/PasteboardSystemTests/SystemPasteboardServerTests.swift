import Foundation
import PasteboardKit
import PasteboardSystem
import PasteboardTestSupport
import Synchronization
import Testing

/// `Pasteboard.useSystemPasteboard(environment:)` in this very process, against other processes.
@Suite(.timeLimit(.minutes(2))) struct SystemPasteboardServerTests {
    @Test func generalChangeCountAndChangesFollowAnExternalCopy() async throws {
        // This process keeps its X connection until it exits, so the display must outlive it (see `Lifetime`).
        let sandbox = try await ProcessSandbox(displayLifetime: .testProcess)
        let general = try Self.systemGeneral(environment: sandbox.environment)
        #expect((general.server as? SystemPasteboardServer)?.usesDisplay == true)
        let before = try general.changeCount
        let changes = general.changes

        let owner = try sandbox.xclipCopy("copied by xclip")
        defer { owner.terminate(grace: .milliseconds(500)) }

        let yielded = try await firstValue(of: changes, within: .seconds(3))
        #expect(yielded.map { $0 > before } == true, "changes yielded \(String(describing: yielded)) after \(before)")
        let increased = try await eventually(within: .seconds(3)) { try general.changeCount > before }
        #expect(increased, "changeCount stayed at \(before) for 3 s")
        #expect(try general.string == "copied by xclip")
    }

    @Test func headlessGeneralIsSharedWithPb() async throws {
        let sandbox = try ProcessSandbox()
        let general = try Self.systemGeneral(environment: sandbox.environment)
        #expect((general.server as? SystemPasteboardServer)?.usesDisplay == false)

        try general.setString("written in-process")
        let paste = try await sandbox.succeed(.pb, ["paste"])
        #expect(paste.output == "written in-process", "\(paste)")

        let before = try general.changeCount
        try await sandbox.succeed(.pb, ["copy"], stdin: Data("written by pb".utf8))
        #expect(try general.string == "written by pb")
        #expect(try general.changeCount > before)
    }

    @Test func headlessBackendIsForcedEvenWithADisplaySet() throws {
        let sandbox = try ProcessSandbox()
        var environment = sandbox.environment
        // No server needs to run at this address: the store is chosen without opening it.
        environment["DISPLAY"] = ":209"
        environment["PB_BACKEND"] = "headless"

        let server = try SystemPasteboardServer(environment: environment)
        #expect(!server.usesDisplay)
        let general = Pasteboard(name: .general, server: server)
        try general.setString("headless after all")
        #expect(try general.string == "headless after all")
    }

    @Test func unreachableDisplayKeepsTheCurrentServer() throws {
        let sandbox = try ProcessSandbox()
        var environment = sandbox.environment
        environment["DISPLAY"] = ":209"  // no X server at this number (the tests use 90…199)

        Self.serverSwap.withLock { _ in
            let previous = Pasteboard.sharedServer
            defer { Pasteboard.sharedServer = previous }
            #expect(!Pasteboard.useSystemPasteboard(environment: environment))
            #expect(Pasteboard.sharedServer as AnyObject === previous as AnyObject)
            #expect(throws: (any Error).self) { try SystemPasteboardServer(environment: environment) }
        }
    }

    // MARK: - Support

    /// Serializes the tests that swap the process-wide `Pasteboard.sharedServer`.
    private static let serverSwap = Mutex<Void>(())

    /// `Pasteboard.general` after `useSystemPasteboard(environment:)`, with the process-wide server put back at
    /// once: other tests in this process may use `Pasteboard.sharedServer` too. The returned pasteboard keeps the
    /// system server it was made with.
    static func systemGeneral(environment: [String: String]) throws -> Pasteboard {
        try serverSwap.withLock { _ in
            let previous = Pasteboard.sharedServer
            defer { Pasteboard.sharedServer = previous }
            guard Pasteboard.useSystemPasteboard(environment: environment) else {
                throw SetupFailure(
                    "useSystemPasteboard(environment:) could not open DISPLAY=\(environment["DISPLAY"] ?? "(unset)")")
            }
            return Pasteboard.general
        }
    }
}
