import ClipboardBackend
import Foundation
import GtkSupport
import PasteboardControl
import PasteboardHistory
import PasteboardModel

extension HistoryController {
    // MARK: - Drag and drop

    /// Every representation of item `id` with a MIME type, for a drag out (nil when it cannot be read).
    static func dragRepresentations(of id: Int64, store: HistoryStore, log: TestLog) -> [DragRepresentation]? {
        let item: PasteboardItem
        do {
            item = try store.pasteboardItem(id: id)
        } catch {
            log.note("drag refused \(id): \(error.message)")
            return nil
        }
        // The names the clipboard offers the item under, those with a MIME type's shape (a file URL as
        // text/uri-list and as the file managers' copied files, made from it).
        var representations: [DragRepresentation] = []
        for target in TargetPlan.servedTargets(for: item) where target.name.contains("/") {
            let data = item.representations[target.representation].data
            representations.append(
                DragRepresentation(mimeType: target.name, data: target.conversion.map { $0.apply(to: data) } ?? data))
        }
        log.note("drag \(id) \(representations.map(\.mimeType).joined(separator: " "))")
        return representations
    }

    /// What another application dropped on the window becomes a history item (not the clipboard: a drop is not a
    /// copy). Returns whether it was taken.
    func addDropped(_ content: DroppedContent) -> Bool {
        var item: PasteboardItem
        let what: String
        switch content {
        case .text(let text):
            guard !text.isEmpty else { return false }
            item = PasteboardItem(string: text)
            what = "text"
        case .files(let paths):
            let uris = paths.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0).absoluteString : $0 }
            item = PasteboardItem(data: Data((uris.joined(separator: "\r\n") + "\r\n").utf8), type: .uriList)
            item.setData(Data(paths.joined(separator: "\n").utf8), forType: .utf8PlainText)
            what = "files"
        case .image(let png):
            guard !png.isEmpty else { return false }
            item = PasteboardItem(data: png, type: .png)
            what = "image"
        }
        let result: RecordResult
        do {
            result = try store.record(item, metadata: CaptureMetadata(source: Self.dropSource))
        } catch {
            showError(AppError(error.message))
            return false
        }
        var event = ControlEvent(.captured, id: result.id)
        event.new = result.isNew
        event.types = item.types.map(\.identifier)
        event.size = item.byteCount
        event.source = Self.dropSource
        log.note("dropped \(what) \(result.id)")
        refresh(after: event)
        return true
    }

    /// What dropped items are recorded as coming from.
    static let dropSource = "drag and drop"
}
