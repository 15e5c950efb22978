import Foundation
import Testing

@testable import PasteboardApp

@Suite struct AppStateTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pbgtk-state-\(UUID().uuidString)")
    }

    @Test func theFileLivesUnderXDGStateHomeElseUnderHome() {
        #expect(AppState.url(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/pasteboard/app-state")
        #expect(AppState.url(environment: ["HOME": "/h"]).path == "/h/.local/state/pasteboard/app-state")
        #expect(
            AppState.url(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).path
                == "/h/.local/state/pasteboard/app-state")
    }

    @Test func aSavedLayoutIsReadBack() throws {
        let url = directory.appendingPathComponent("pasteboard/app-state")
        defer { try? FileManager.default.removeItem(at: directory) }  // cleanup of a temporary directory
        #expect(AppState.load(from: url) == AppState(), "no file: the defaults")
        try AppState(layout: .list).save(to: url)
        #expect(try String(contentsOf: url, encoding: .utf8) == "layout = list\n")
        #expect(AppState.load(from: url).layout == .list)
    }

    @Test func unknownKeysAndValuesArePassedOver() throws {
        let url = directory.appendingPathComponent("app-state")
        defer { try? FileManager.default.removeItem(at: directory) }  // cleanup of a temporary directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("colour = blue\nlayout = sideways\n".utf8).write(to: url)
        #expect(AppState.load(from: url).layout == .strip)
    }

    @Test func anUnwritableLocationIsAnErrorNamingTheFile() {
        let url = URL(fileURLWithPath: "/proc/pasteboard-test/app-state")
        #expect(throws: AppError.self) { try AppState(layout: .list).save(to: url) }
    }
}
