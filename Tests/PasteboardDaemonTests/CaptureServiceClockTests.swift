import ClipboardBackend
import Foundation
import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
import Testing

@testable import PasteboardDaemon

/// The capture service on the in-memory backend's clock: take-overs and reads that stall happen when the clock
/// says, not when the machine gets to them.
@Suite struct CaptureServiceClockTests {
    let directory: URL
    let store: HistoryStore
    let backend = InMemoryBackend(now: Date(timeIntervalSince1970: 2_000_000))
    let services = ServiceKeeper()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pb-clock-\(UUID().uuidString)")
        store = try HistoryStore(location: StoreLocation(directory: directory))
    }

    func service(_ configuration: String = "") throws -> CaptureService {
        let parsed = try Configuration.parse(configuration, path: "config")
        let service = CaptureService(
            store: store, rules: parsed.capture, backend: backend, clock: { [backend] in backend.now }, log: { _ in },
            broadcast: { _ in })
        service.start()
        services.all.append(service)
        return service
    }

    /// Moves the backend's clock on and lets the service handle what is due, as the daemon's loop does.
    func advance(_ service: CaptureService, by seconds: TimeInterval) {
        backend.advance(by: seconds)
        service.processTimeouts(now: backend.now)
    }

    @Test func aTakeOverComesExactlyWhenTheDelayHasPassed() throws {
        let service = try service("take-over-delay = 2s\n")
        backend.copy(PasteboardItem(string: "keep me"))
        backend.ownerExits(.clipboard)
        #expect(service.nextDeadline == backend.now.addingTimeInterval(2))
        advance(service, by: 1.99)
        #expect(!backend.owns(.clipboard), "the owner may still set its next copy")
        advance(service, by: 0.01)
        #expect(backend.owns(.clipboard) && backend.paste()?.string == "keep me")
        #expect(service.takeOvers == 1 && service.nextDeadline == nil)
    }

    /// The owner exits while one of its types stalls: the take-over waits for that read, and serves what it got.
    @Test func anOwnerThatExitsDuringAStalledReadIsTakenOverWithWhatWasRead() throws {
        let service = try service()
        backend.copy(PasteboardItem(string: "earlier"))
        backend.stalling = ["text/html"]
        var item = PasteboardItem(string: "last copy")
        item.setData(Data("<b>never sent</b>".utf8), forType: .html)
        backend.copy(item)
        backend.ownerExits(.clipboard, clientExited: true)
        #expect(!backend.owns(.clipboard), "not with the earlier item while the last copy is being read")
        advance(service, by: backend.limits.stallTimeout)
        #expect(backend.owns(.clipboard))
        #expect(backend.paste()?.string == "last copy")
        #expect(try store.items(limit: 10).map(\.preview) == ["last copy", "earlier"])
        #expect(try store.items(limit: 1).first?.types == [.utf8PlainText], "the stalled type is dropped")
    }
}
