import Foundation
import PasteboardTestSupport
import Testing

@testable import PasteboardPicker

/// Image previews in `pb pick`: half-blocks and the one-line description through tmux (which drops sixel), and
/// sixel in a real `xterm -ti vt340` under Xvfb, checked on a screenshot.
@Suite(.timeLimit(.minutes(2))) struct PickImageTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    // MARK: - What the terminal answers

    @Test func theTerminalsAnswerChoosesTheDrawing() throws {
        let kitty = Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;4;22c".utf8)
        #expect(TerminalGraphics.parse(kitty)?.graphics == .kitty)
        let sixel = Array("x\u{1B}[?63;1;2;4;6;9;15;22c".utf8)
        #expect(TerminalGraphics.parse(sixel)?.graphics == .sixel)
        #expect(TerminalGraphics.parse(sixel)?.rest == Array("x".utf8), "a key typed meanwhile is kept")
        #expect(TerminalGraphics.parse(Array("\u{1B}[?1;2c".utf8))?.graphics == .blocks)
        #expect(TerminalGraphics.parse(Array("\u{1B}[?1;4".utf8)) == nil, "no DA1 reply yet")
        let refused = Array("\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\\u{1B}[?1;2c".utf8)
        #expect(TerminalGraphics.parse(refused)?.graphics == .blocks)
    }

    @Test func aLateKittyAnswerIsNotTakenForKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}_Gi=31;OK".utf8)).isEmpty)
        #expect(decoder.feed(Array("\u{1B}\\a".utf8)) == [.character("a")])
        #expect(decoder.feed(Array("\u{1B}[?62;4c".utf8)).isEmpty, "a late DA1 reply is ignored")
    }

    @Test func imageHeadersGiveFormatAndSize() {
        #expect(ImageHeader(Array(Payloads.png)) == ImageHeader(format: "PNG", width: 2, height: 2))
        #expect(
            ImageHeader(Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00])
                == ImageHeader(format: "GIF", width: 320, height: 240))
        #expect(ImageHeader(Array("plain text, not a picture".utf8)) == nil)
        #expect(ImageHeader(format: "PNG", width: 10_000, height: 10_000).isTooLargeToDecode)
    }

    @Test func kittyGetsThePNGInChunksOfAtMost4096() {
        let image = [UInt8](repeating: 0xA5, count: 7000)  // 9336 base64 bytes: three chunks
        let sequence = ImagePreviewRenderer.kittyPNG(image, columns: 20, rows: 6)
        let chunks = sequence.components(separatedBy: "\u{1B}\\").filter { !$0.isEmpty }
        #expect(chunks.count == 3)
        #expect(chunks[0].hasPrefix("\u{1B}_Ga=T,f=100,t=d,q=2,c=20,r=6,m=1;"))
        #expect(chunks[1].hasPrefix("\u{1B}_Gm=1;") && chunks[2].hasPrefix("\u{1B}_Gm=0;"))
        let payload = chunks.map { String($0[$0.index(after: $0.firstIndex(of: ";")!)...]) }
        #expect(payload.allSatisfy { $0.utf8.count <= 4096 })
        #expect(Data(base64Encoded: payload.joined()) == Data(image))
    }

    // MARK: - Through tmux

    func pick(_ arguments: String = "", prefix: String = "") async throws -> TerminalSession {
        let session = try await TerminalSession(
            "\(prefix)\(TerminalSession.shellQuoted(try Product.pb.path())) pick \(arguments)", sandbox: sandbox)
        try await session.waitForScreen { $0.first?.hasPrefix(">") == true }
        return session
    }

    static func previewRows(_ screen: [String]) -> [String] {
        Array(screen.drop { !$0.hasPrefix("────") }.dropFirst())
    }

    @Test func halfBlocksWhereTheTerminalHasNoGraphics() async throws {
        #expect(executableOnPath("chafa") != nil, "chafa is needed: apt-get install -y chafa")
        try await sandbox.copy(Payloads.png)
        let session = try await pick()
        let screen = try await session.waitForScreen {
            Self.previewRows($0).contains { $0.contains("▄") || $0.contains("▀") }
        }
        #expect(Self.previewRows(screen).contains("PNG image, 2×2"), "\(screen)")
        #expect(screen[1].contains("image"), "the list is drawn as before: \(screen[1])")
    }

    /// The words the daemon's recognizer read in a picture (issue 29) follow its description, so the item a search
    /// found by them shows why.
    @Test func thePreviewLineNamesTheWordsReadInThePicture() async throws {
        try await sandbox.copy(Payloads.png)
        let id = try #require(try await sandbox.history().first?.id)
        try SQLiteTool.run(
            "INSERT INTO recognized_text(item_id, text, outcome, languages, time) "
                + "VALUES (\(id), 'quarterly zebra\nrevenue 4711', 'recognized', 'eng', 0)",
            on: sandbox.databaseURL, in: sandbox)
        let session = try await pick("--images text")
        let screen = try await session.waitForScreen { Self.previewRows($0).contains { $0.hasPrefix("PNG image") } }
        #expect(
            Self.previewRows(screen).contains("PNG image, 2×2 · words: quarterly zebra revenue 4711"), "\(screen)")
    }

    /// The smallest GIF: one transparent pixel.
    static let gif = Data(
        [
            0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00,
            0x00,
        ]
            + [0x21, 0xF9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00]
            + [0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])

    @Test func withoutChafaPNGsAreDrawnAndOthersDescribed() async throws {
        try await sandbox.copy(Self.gif)
        try await sandbox.copy(Payloads.png)
        let session = try await pick(prefix: "PATH=/nonexistent ")
        var screen = try await session.waitForScreen { Self.previewRows($0).contains { $0.contains("▀") } }
        #expect(Self.previewRows(screen).contains("PNG image, 2×2"), "pb decodes the PNG itself: \(screen)")
        try await session.send("Down")
        screen = try await session.waitForScreen { Self.previewRows($0).contains { $0.hasPrefix("GIF image, 1×1") } }
        #expect(Self.previewRows(screen).contains { $0.contains("install chafa") }, "\(screen)")
        #expect(!screen.contains { $0.contains("▄") || $0.contains("▀") })

        let described = try await pick("--images text")
        let text = try await described.waitForScreen { Self.previewRows($0).contains("PNG image, 2×2") }
        #expect(!text.contains { $0.contains("▄") || $0.contains("▀") }, "\(text)")
    }

    @Test func ourPNGDecoderDrawsHalfBlocks() throws {
        let image = try #require(PNGImage(Array(Payloads.png)))
        #expect(image.rgba == [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128])
        // Red over blue, green over half-transparent white (blended over black: mid grey).
        #expect(
            HalfBlocks.lines(image, columns: 2, rows: 1) == [
                "\u{1B}[38;5;196;48;5;21m▀\u{1B}[38;5;46;48;5;145m▀\u{1B}[0m"
            ])
        #expect(PNGImage(Array(Payloads.png.prefix(40))) == nil, "a cut PNG is not decoded")
    }

    /// Our decoder against ImageMagick's, over every colour type and several bit depths.
    @Test(arguments: [("0", "8"), ("0", "1"), ("2", "8"), ("2", "16"), ("3", "8"), ("4", "8"), ("6", "8"), ("6", "16")])
    func ourPNGDecoderAgreesWithImageMagick(colorType: String, depth: String) async throws {
        let path = sandbox.root.appendingPathComponent("t\(colorType)-\(depth).png").path
        let io = sandbox.root.appendingPathComponent("io")
        var source = ["-size", "37x23", "gradient:red-blue", "-fill", "yellow", "-draw", "circle 18,11 18,4"]
        if colorType == "4" || colorType == "6" {
            source += ["-alpha", "set", "-channel", "A", "-evaluate", "set", "60%"]
        }
        if colorType == "0" || colorType == "4" { source += ["-colorspace", "Gray"] }
        if depth == "1" { source += ["-threshold", "50%"] }
        let make = try ChildProcess(
            executable: try Self.tool("convert"),
            arguments: source + [
                "-define", "png:color-type=\(colorType)", "-define", "png:bit-depth=\(depth)", "PNG:" + path,
            ], environment: sandbox.environment, stdin: nil, ioDirectory: io)
        #expect(try await make.finish(timeout: .seconds(20)).succeeded)
        let expected = try await ChildProcess(
            executable: try Self.tool("convert"), arguments: [path, "-depth", "8", "rgba:-"],
            environment: sandbox.environment, stdin: nil, ioDirectory: io
        ).finish(timeout: .seconds(20)).stdout
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(file[25] == UInt8(colorType), "ImageMagick wrote colour type \(file[25])")
        let image = try #require(PNGImage(Array(file)))
        #expect(image.width == 37 && image.height == 23)
        let differences = zip(image.rgba, expected).filter { abs(Int($0) - Int($1)) > 1 }.count
        #expect(expected.count == image.rgba.count && differences == 0, "\(differences) bytes differ")
    }

    // MARK: - Sixel in xterm

    /// How many colours the screenshot of `display` has in `region` (`WxH+X+Y`).
    func colours(on display: VirtualDisplay, in region: String) async throws -> Int {
        let shot = sandbox.root.appendingPathComponent("shot.png").path
        let environment = ["DISPLAY": display.name, "PATH": sandbox.environment["PATH"] ?? "/usr/bin:/bin"]
        let io = sandbox.root.appendingPathComponent("io")
        let capture = try ChildProcess(
            executable: try Self.tool("import"), arguments: ["-window", "root", shot], environment: environment,
            stdin: nil, ioDirectory: io)
        guard try await capture.finish(timeout: .seconds(10)).succeeded else { return 0 }
        let count = try ChildProcess(
            executable: try Self.tool("convert"),
            arguments: [shot, "-crop", region, "+repage", "-format", "%k", "info:"],
            environment: environment, stdin: nil, ioDirectory: io)
        return Int(try await count.finish(timeout: .seconds(10)).output.trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
    }

    static func tool(_ name: String) throws -> String {
        guard let path = executableOnPath(name) else {
            throw SetupFailure(
                "\(name) is needed by the sixel preview test: apt-get install -y xterm imagemagick xdotool")
        }
        return path
    }

    @Test func sixelInXtermVT340() async throws {
        let io = sandbox.root.appendingPathComponent("io")
        let picture = sandbox.root.appendingPathComponent("picture.png")
        let draw = try ChildProcess(
            executable: try Self.tool("convert"),
            arguments: [
                "-size", "120x90", "gradient:red-blue", "-fill", "yellow", "-draw", "circle 60,45 60,20", picture.path,
            ],
            environment: sandbox.environment, stdin: nil, ioDirectory: io)
        #expect(try await draw.finish(timeout: .seconds(20)).succeeded)
        try await sandbox.copy("plain text")
        try await sandbox.copy(try Data(contentsOf: picture))

        let display = try await VirtualDisplay(
            ioDirectory: io, requiredBy: "the sixel preview test", screen: "640x400x24")
        var environment = sandbox.environment
        environment["DISPLAY"] = display.name
        let status = sandbox.root.appendingPathComponent("status")
        // 80×24 cells of 6×13 pixels: the preview is under the list, its picture on rows 18 to 22.
        let terminal = try ChildProcess(
            executable: try Self.tool("xterm"),
            arguments: [
                "-ti", "vt340", "-fn", "6x13", "-geometry", "80x24+0+0", "-e", "/bin/sh", "-c",
                "\"$0\" pick; echo $? > \"$1\"", try Product.pb.path(), status.path,
            ],
            environment: environment, stdin: nil, ioDirectory: io)
        defer { terminal.terminate(grace: .seconds(2)) }
        let region = "470x60+2+238"
        var seen = 0
        let drawn = try await eventually(within: .seconds(15), every: .milliseconds(200)) {
            seen = try await colours(on: display, in: region)
            return seen > 20
        }
        #expect(drawn, "the preview area shows \(seen) colours; a sixel gradient has many")

        let xdotool = try Self.tool("xdotool")
        let down = try ChildProcess(
            executable: xdotool, arguments: ["key", "Down"], environment: environment, stdin: nil, ioDirectory: io)
        _ = try await down.finish(timeout: .seconds(10))
        let cleared = try await eventually(within: .seconds(10), every: .milliseconds(200)) {
            seen = try await colours(on: display, in: region)
            return seen <= 4
        }
        #expect(cleared, "after moving to the text item the picture is gone (\(seen) colours left)")

        let escape = try ChildProcess(
            executable: xdotool, arguments: ["key", "Escape"], environment: environment, stdin: nil, ioDirectory: io)
        _ = try await escape.finish(timeout: .seconds(10))
        let exited = try await eventually(within: .seconds(10)) {
            (try? String(contentsOf: status, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "130"
        }
        #expect(exited, "Esc ends pb pick with status 130")
    }
}
