import Foundation
import PasteboardTestSupport
import Testing

/// What `pb daemon` suggests trying when it starts: commands that work as printed, in another terminal.
@Suite struct DaemonStartMessageTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Where `PATH` leads when a person types `pb`.
    enum PathSetup: String, CaseIterable, Sendable {
        /// No `pb` on the `PATH`, as right after `make run`.
        case withoutPB
        /// A `pb` link to the running binary, as after installing it.
        case linkToThisPB
        /// Another program called `pb` comes first, such as an older install.
        case otherPBFirst
    }

    /// The `PATH` for `setup`, built inside the sandbox.
    func path(for setup: PathSetup) throws -> String {
        let system = "/usr/bin:/bin"
        let bin = sandbox.root.appendingPathComponent("path-\(setup.rawValue)", isDirectory: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let pb = bin.appendingPathComponent("pb")
        switch setup {
        case .withoutPB:
            return system
        case .linkToThisPB:
            try FileManager.default.createSymbolicLink(at: pb, withDestinationURL: try Product.pb.url())
        case .otherPBFirst:
            try sandbox.file("path-\(setup.rawValue)/pb", Data("#!/bin/sh\necho not this one\n".utf8))
            chmod(pb.path, 0o755)
        }
        return bin.path + ":" + system
    }

    @Test(arguments: PathSetup.allCases)
    func suggestedCommandsRunThisPB(setup: PathSetup) async throws {
        let daemon = try sandbox.launch(
            ["daemon", "--backend", "headless"], environment: ["PATH": try path(for: setup)])
        let started = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            daemon.stdoutSoFar.contains("Stop with Ctrl-C.")
        }
        daemon.send(SIGTERM)
        _ = try await daemon.waitForExit(timeout: .seconds(10))
        try #require(started, "no start message; stdout: \(daemon.stdoutSoFar) stderr: \(daemon.stderrSoFar)")
        let built = try Product.pb.url().resolvingSymlinksInPath().path
        let plain = built.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._+-,:@%".unicodeScalars.contains($0))
        }
        let shown = plain ? built : "'" + built.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let pb = setup == .linkToThisPB ? "pb" : shown
        let lines = daemon.stdoutSoFar.split(separator: "\n").map(String.init)
        #expect(lines.contains("  echo hello | \(pb) copy && \(pb) paste"), "\(lines)")
        #expect(lines.contains("  \(pb) history"), "\(lines)")
        #expect(lines.contains("  \(pb) watch          # live events"), "\(lines)")
    }
}
