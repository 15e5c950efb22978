import Foundation
import SystemSupport
import Testing
import WaylandPaste

/// The paste keystroke's errors keep the failed call behind their message.
@Suite struct WaylandPasteErrorTests {
    @Test func noCompositorKeepsTheFailedConnectAsItsCause() throws {
        let name = "pb-no-compositor-\(UUID().uuidString)"
        let error = try #require(throws: WaylandPasteError.self) { try VirtualKeyboard.check(display: name) }
        #expect(error.code == .cannotConnect)
        #expect(error.message.contains(name))
        let cause = try #require(error.cause as? SystemError)
        #expect(cause.call == "wl_display_connect")
        #expect(cause.errno != 0)
        #expect(error.message.contains(cause.reason))
    }
}
