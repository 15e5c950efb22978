import Foundation
import PasteboardHistory
import PasteboardModel
import X11Backend

/// The daemon's X11 backend: records every copy, keeps the clipboard alive when its owner exits, serves items.
final class X11DaemonBackend: DaemonBackend {
    let name = "x11"
    let clipboard: X11Clipboard
    let policy: CapturePolicy
    private weak var daemon: Daemon?
    /// The last item seen on each selection: what the daemon serves when the owner goes away.
    private var lastItem: [Selection: PasteboardItem] = [:]
    /// The last PRIMARY item recorded, to coalesce a growing selection into one item.
    private var lastPrimary: (id: Int64, text: String, at: Date)?
    private(set) var captured = 0
    private(set) var skipped = 0

    init(displayName: String?, policy: CapturePolicy) throws {
        self.policy = policy
        var watch: Set<Selection> = [.clipboard]
        if policy.capturesPrimary { watch.insert(.primary) }
        do {
            clipboard = try X11Clipboard(displayName: displayName, watch: watch)
        } catch {
            throw DaemonError(error.message)
        }
    }

    var fileDescriptor: Int32 { clipboard.fileDescriptor }
    var nextDeadline: Date? { clipboard.nextDeadline }
    func processEvents() { clipboard.processEvents() }
    func processTimeouts() { clipboard.processTimeouts() }

    func start(daemon: Daemon) throws {
        self.daemon = daemon
        clipboard.onCapture = { [weak self] offer in self?.record(offer) }
        clipboard.onSkip = { [weak self] selection, reason in self?.skip(selection, reason) }
        clipboard.onOwnerGone = { [weak self] selection in self?.takeOver(selection) }
        clipboard.onLostOwnership = { [weak self] selection in
            self?.daemon?.logLine("\(selection.name): another application took the selection")
        }
        if !clipboard.becomeClipboardManager() {
            daemon.logLine("another clipboard manager holds CLIPBOARD_MANAGER; continuing without it")
        }
        // What is on the clipboard right now counts as the first copy.
        clipboard.captureCurrent(.clipboard)
    }

    func serve(_ item: PasteboardItem, once: Bool, expireAfter: TimeInterval?, daemon: Daemon) throws {
        guard clipboard.own(.clipboard, item: item, once: once) else {
            throw DaemonError("Could not take the clipboard selection.")
        }
        lastItem[.clipboard] = once ? nil : item
        if let expireAfter {
            daemon.timers.append((Date().addingTimeInterval(expireAfter), { [weak self] in
                guard let self, self.clipboard.owns(.clipboard) else { return }
                self.clipboard.disown(.clipboard)
                self.lastItem[.clipboard] = nil
                self.daemon?.logLine("clipboard: expired item cleared")
            }))
        }
    }

    func clear() {
        clipboard.clearSelection(.clipboard)
        lastItem[.clipboard] = nil
    }

    private func record(_ offer: CapturedOffer) {
        guard let daemon, let store = daemon.openStore else { return }
        if let reason = policy.rejection(of: offer.item, application: offer.sourceApplication) {
            // Not recorded, and not kept alive either: an ignored application's copy dies with it.
            lastItem[offer.selection] = nil
            skipped += 1
            daemon.logLine("\(offer.selection.name): not recorded (\(reason))")
            return
        }
        lastItem[offer.selection] = offer.item
        do {
            var metadata = CaptureMetadata(source: offer.sourceApplication, selection: offer.selection.name, date: offer.observedAt)
            if offer.selection == .primary, let text = offer.item.string, let previous = lastPrimary,
                offer.observedAt.timeIntervalSince(previous.at) < 5,
                text.hasPrefix(previous.text) || text.hasSuffix(previous.text) || previous.text.hasPrefix(text)
            {
                // A selection still being dragged: replace the shorter step with the longer one.
                try store.delete(ids: [previous.id])
                metadata.date = offer.observedAt
            }
            let result = try store.record(offer.item, metadata: metadata)
            if offer.selection == .primary, let text = offer.item.string { lastPrimary = (result.id, text, offer.observedAt) }
            captured += 1
            daemon.logLine("\(offer.selection.name): recorded item \(result.id) (\(offer.item.types.count) type\(offer.item.types.count == 1 ? "" : "s"), \(ByteCountFormatting.string(offer.item.byteCount))\(offer.sourceApplication.map { ", from \($0)" } ?? ""))")
            var event: [String: Any] = [
                "event": "captured", "id": result.id, "new": result.isNew, "selection": offer.selection.name,
                "types": offer.item.types.map(\.identifier), "size": offer.item.byteCount,
                "time": offer.observedAt.timeIntervalSince1970, "committed": Date().timeIntervalSince1970,
                "ownerTime": offer.ownerChangeTime,
            ]
            if let source = offer.sourceApplication { event["source"] = source }
            daemon.broadcast(event)
        } catch {
            daemon.logLine("\(offer.selection.name): could not record: \(error)")
        }
    }

    private func skip(_ selection: Selection, _ reason: CaptureSkip) {
        skipped += 1
        // The clipboard holds something else now than the item last read: never bring that one back when this
        // owner exits. (A superseded capture is followed by a newer one, which decides.)
        if reason != .superseded { lastItem[selection] = nil }
        switch reason {
        case .secret:
            lastItem[selection] = nil
            daemon?.logLine("\(selection.name): skipped a concealed (secret) offer")
        case .empty: break
        case .superseded: daemon?.logLine("\(selection.name): a newer copy replaced one still being read")
        case .ownerRefused(let target): daemon?.logLine("\(selection.name): the owner refused \(target)")
        case .timedOut(let target): daemon?.logLine("\(selection.name): the owner stalled on \(target); gave up")
        case .tooLarge(let target): daemon?.logLine("\(selection.name): \(target) exceeds the size limit; skipped")
        }
    }

    private func takeOver(_ selection: Selection) {
        guard let item = lastItem[selection] else { return }
        if clipboard.own(selection, item: item) {
            daemon?.logLine("\(selection.name): the owner exited; now serving its content")
        }
    }
}
