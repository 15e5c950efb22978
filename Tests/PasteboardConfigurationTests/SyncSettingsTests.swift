import Foundation
import PasteboardConfiguration
import PasteboardModel
import Testing

@Suite struct SyncSettingsTests {
    @Test func everySyncSettingIsRead() throws {
        let text = """
            sync-max-item-size = 5M
            sync-ignore-app = KeePassXC
            sync-ignore-type = image/*
            sync-clipboard = on
            syncthing-url = http://127.0.0.1:8384
            syncthing-api-key = abc-123
            syncthing-folder = pasteboard
            """
        let sync = try Configuration.parse(text, path: "config").sync
        #expect(sync.maxItemBytes == 5 << 20)
        #expect(sync.syncsClipboard)
        #expect(sync.syncthing?.url.port == 8384)
        #expect(sync.syncthing?.folderID == "pasteboard")
        #expect(sync.localReason(source: "keepassxc", types: [.utf8PlainText], size: 1) != nil)
        #expect(sync.localReason(source: nil, types: [.png], size: 1) != nil)
        #expect(sync.localReason(source: nil, types: [.utf8PlainText], size: 6 << 20) != nil)
        #expect(sync.localReason(source: "firefox", types: [.utf8PlainText], size: 10) == nil)
    }

    @Test func theDefaultsSyncUpTo20MAndLeaveTheClipboardAlone() throws {
        let sync = try Configuration.parse("", path: "config").sync
        #expect(sync.maxItemBytes == 20 << 20)
        #expect(!sync.syncsClipboard)
        #expect(sync.syncthing == nil)
    }

    @Test(arguments: [
        "sync-max-item-size = lots", "sync-clipboard = maybe", "syncthing-url = http://example.com:8384",
        "syncthing-url = https://127.0.0.1:8384", "syncthing-api-key = a b", "sync-ignore-type = not a type",
        "syncthing-url = http://127.0.0.1:8384",  // without its API key and folder
    ])
    func aBadSyncSettingIsAnError(line: String) {
        #expect(throws: ConfigurationError.self) { try Configuration.parse(line + "\n", path: "config") }
    }
}
