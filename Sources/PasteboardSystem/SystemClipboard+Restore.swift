public import DisplayBackends
public import PasteboardHistory
import PasteboardModel

extension SystemClipboard {
    /// Puts history item `id` back on the clipboard with all its representations, as `pb restore`, `pb pick`, the
    /// app's click and its popup do: the item moves to the top of the history and counts a copy
    /// (`HistoryStore.restore(id:onto:date:)`), then goes on the clipboard: headless, the store's `general`
    /// pasteboard (in the same transaction); with a display, through the daemon, else through `fallback`. No payload is
    /// read, hashed or copied on the way: whoever serves the item reads its files when a reader asks. Watchers hear
    /// of it once, as `restored`, from the store's change feed.
    ///
    /// With `plain` ("paste as plain text"), only the item's plain text goes on the clipboard (`fallback` is then
    /// asked for an owner of the plain text); the item still moves to the top, and no item is added.
    public func restore(
        id: Int64, store: HistoryStore, plain: Bool = false, fallback: (Int64) -> Fallback
    ) throws(ClipboardError) {
        do {
            if plain {
                // Checked before anything moves: an item without text is refused as it is.
                guard try store.pasteboardItem(id: id).plainTextOnly != nil else {
                    throw ClipboardError("Item \(id) has no text to paste as plain text.")
                }
            }
            if kind.hasDisplay {
                let restoration = try store.restore(id: id)
                try deliver(
                    id: id, once: false, expire: nil, plain: plain,
                    fallback: restoration.asksBeforePaste ? .askingItem : fallback(id))
            } else if plain {
                try store.restore(id: id)
                let text = try store.pasteboardItem(id: id).plainTextOnly
                _ = try store.writePasteboard(text.map { [$0] } ?? [], to: PasteboardName.general.rawValue)
            } else {
                try store.restore(id: id, onto: PasteboardName.general.rawValue)
            }
        } catch let error as ClipboardError {
            throw error
        } catch let error as HistoryError {
            throw ClipboardError(error.message, cause: error)
        } catch {
            throw ClipboardError("\(error)")
        }
        // Watchers hear of it from the store's change feed (`restored`), through the daemon.
    }
}
