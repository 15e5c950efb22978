import Foundation
import PasteboardTestSupport
import Testing

/// Invoked through links named `pbcopy` and `pbpaste`, pb behaves like `pb copy` and `pb paste`.
@Suite struct MacOSLinkTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func pbcopyThenPbpaste() async throws {
        let text = Data("via the links ✂️\r\n".utf8)
        let copy = try await sandbox.run([], stdin: text, as: .pbcopy)
        #expect(copy.status == 0, "\(copy)")
        #expect(copy.stdout.isEmpty)
        let paste = try await sandbox.run([], as: .pbpaste)
        #expect(paste.status == 0, "\(paste)")
        #expect(paste.stdout == text)
        #expect(try await sandbox.paste() == text)
    }

    @Test func linksShareTheClipboardWithPb() async throws {
        try await sandbox.copy(Payloads.png)
        #expect(try await sandbox.succeed(["--type", "png"], as: .pbpaste).stdout == Payloads.png)
        let file = try sandbox.file("in.txt", Data("file via pbcopy".utf8))
        try await sandbox.succeed([file.path], as: .pbcopy)
        #expect(try await sandbox.paste() == Data("file via pbcopy".utf8))
        #expect(try await sandbox.history().count == 2)
    }

    @Test func linkErrorsLikeTheCommands() async throws {
        let empty = try await sandbox.run([], as: .pbpaste)
        #expect(empty.status == 1)
        #expect(empty.errorLines == ["Error: The clipboard is empty."])
        let nothing = try await sandbox.run([], stdin: Data(), as: .pbcopy)
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("Nothing to copy"))
        let bad = try await sandbox.run(["--bogus"], as: .pbcopy)
        #expect(bad.status == 64)
        #expect(bad.errorLines.contains { $0.hasPrefix("Usage: pbcopy [--type TYPE]") }, "usage names the link as the command: \(bad)")
        #expect(bad.errorLines.last == "  See 'pbcopy --help'.")
    }

    @Test func linkHelpNamesTheLink() async throws {
        let result = try await sandbox.run(["--help"], as: .pbpaste)
        #expect(result.status == 0)
        #expect(result.outputLines.contains { $0.hasPrefix("USAGE: pbpaste [--type TYPE] [--list-types]") }, "\(result)")
        #expect(!result.output.contains("pbpaste paste"), "\(result)")
    }
}
