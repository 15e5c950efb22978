public import FoundationEssentials
import PasteboardModel

extension ClipboardBackend {
    /// Reads `selection` now, waiting up to `timeout`, through a `CaptureRun` in `request` mode: `choose` picks
    /// which offered types to read (default: everything worth keeping; a secret reads nothing). No rule applies:
    /// a client's read is not recorded.
    public func read(
        _ selection: Selection, timeout: TimeInterval = 3, choose: (([String]) -> FetchDecision)? = nil
    ) -> ReadResult {
        var result: ReadResult?
        let run = CaptureRun(selection, mode: .request, chooser: choose) { run in
            switch run.outcome {
            case .captured(let offer): result = .item(offer.item, offered: offer.offeredTypes)
            case .skipped(let reason): result = .failed(reason)
            case nil: break
            }
        }
        switch startReading(selection, into: run) {
        case .empty: return .empty
        case .ours(let item, let offered): return .item(item, offered: offered)
        case .reading: break
        }
        if !self.run(until: { result != nil }, deadline: Date().addingTimeInterval(timeout)) {
            run.cancel(.timedOut("the selection owner did not answer"))
            return .failed(.timedOut("the selection owner did not answer"))
        }
        return result ?? .failed(.empty)
    }
}
