import Foundation
import PasteboardTestSupport
import Testing

/// Drag and drop with a real GTK 4 application (`Support/dnd_peer.py`): a history item dragged out carries every
/// representation; text dropped in from the peer becomes a history item.
@Suite(.timeLimit(.minutes(2))) struct DragAndDropTests {
    /// The peer: a window at 700,560 (beside the app's 980×640 at the origin), a drag source in its top half and a
    /// drop target in its bottom half.
    static let peerSource = (x: 850, y: 610)
    static let peerTarget = (x: 850, y: 710)

    func startPeer(_ session: AppSession, text: String) async throws -> ChildProcess {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Support/dnd_peer.py")
        let peer = try session.sandbox.launch(
            "/usr/bin/python3", [script.path, "DnD Peer", text], environment: ["GSK_RENDERER": "cairo"])
        let ready = try await eventually(within: .seconds(15), every: .milliseconds(50)) {
            output(of: peer).contains("ready") || !peer.isRunning
        }
        guard ready, peer.isRunning else { throw SetupFailure("the GTK 4 drag-and-drop peer did not start: \(peer.stderr)") }
        try await session.placeWindow(named: "DnD Peer", x: 700, y: 560)
        return peer
    }

    func output(of peer: ChildProcess) -> String { String(decoding: peer.stdout, as: UTF8.self) }

    @Test func anItemDraggedOutCarriesEveryRepresentation() async throws {
        let session = try await AppSession()
        let html = "<p>Dragged <b>out</b></p>"
        let page = try session.sandbox.file(Data(html.utf8), name: "page.html")
        let id = try await session.seed(file: page, type: "html")
        try await session.launchApp()
        let peer = try await startPeer(session, text: "unused")
        defer { peer.send(SIGTERM) }

        // The newest item is the strip's first chip.
        try await session.drag(from: (100, 200), to: Self.peerTarget)
        try await session.waitForLog { $0.hasPrefix("drag \(id) ") }
        let dropped = try await eventually(within: .seconds(5), every: .milliseconds(50)) {
            output(of: peer).contains("drop text")
        }
        let lines = output(of: peer).split(separator: "\n").map(String.init)
        #expect(dropped, "the peer got no drop: \(lines)")
        let formats = lines.first { $0.hasPrefix("formats ") }?.split(separator: " ").map(String.init) ?? []
        #expect(formats.contains("text/html") && formats.contains("text/plain;charset=utf-8"), "\(formats)")
        #expect(lines.contains("drop text Dragged out"), "the peer read the plain text: \(lines)")
    }

    @Test func textDroppedInFromAnotherApplicationJoinsTheHistory() async throws {
        let session = try await AppSession()
        try await session.seed("already there")
        try await session.launchApp()
        let peer = try await startPeer(session, text: "dragged in from a peer")
        defer { peer.send(SIGTERM) }

        try await session.drag(from: Self.peerSource, to: (400, 450))
        let line = try await session.waitForLog { $0.hasPrefix("dropped text ") }
        try await session.waitForLog { $0 == "rows 2" }
        let newest = try await session.history(limit: 1).first
        #expect(newest?["preview"] as? String == "dragged in from a peer", "\(String(describing: newest))")
        #expect(newest?["source"] as? String == "drag and drop", "\(String(describing: newest))")
        #expect(line == "dropped text \(newest?["id"] as? Int ?? -1)")
    }
}
