import Foundation
import GtkSupport
import PasteboardControl
import PasteboardHistory

extension HistoryController {
    // MARK: - Allow Paste

    /// A daemon event about pastes: a question to ask, or a paste that happened (its log shows in the preview).
    /// Returns whether it was one.
    func handlePasteEvent(_ event: ControlEvent) -> Bool {
        switch event.event {
        case .pasteRequested:
            guard let request = event.request else { return true }
            ask(request, event: event)
            return true
        case .pasted:
            if let request = event.request, let window = approvals[request] {
                window.dismiss()
                approvals[request] = nil
            }
            log.note("pasted \(event.id ?? 0) by \(event.reader ?? "?"): \(event.outcome ?? "?")")
            if let id = event.id, id == preview.itemID { showPasteLog(of: id) }
            return true
        default:
            return false
        }
    }

    private func ask(_ request: Int, event: ControlEvent) {
        let reader = event.reader ?? "An application"
        let source = event.source.map { $0 == Self.source ? "Pasteboard History" : $0 } ?? "the clipboard"
        let question = "Allow \(reader) to paste from \(source)?"
        var detail = event.reader == nil ? "This display does not say which application asks. " : ""
        if let pid = event.readerPID { detail += "Process \(pid). " }
        if let deadline = event.deadline {
            let seconds = max(0, Int((deadline - Date().timeIntervalSince1970).rounded()))
            detail += "Without an answer in \(seconds) s, the paste is refused."
        }
        let window = PasteApprovalWindow(request: request, question: question, detail: detail) { [weak self] allow in
            guard let self else { return }
            self.approvals[request] = nil
            self.log.note("paste answer \(request) \(allow ? "allow" : "deny")")
            self.worker.answerPaste(request, allow: allow) { error in
                MainLoop.post { [weak self] in self?.showError(error) }
            }
        }
        approvals[request] = window
        window.present()
        log.note("paste question \(request): \(question)")
    }

    /// Shows item `id`'s paste log under its details.
    func showPasteLog(of id: Int64) {
        do {
            let records = try store.pasteLog(itemID: id, limit: 5)
            preview.showPasteLog(records, for: id)
            if let last = records.first {
                log.note("preview pastes \(id): \(last.reader ?? "?") \(last.outcome.rawValue)")
            }
        } catch {
            showError(AppError(error.message))
        }
    }

    /// Makes the selected item ask before it is pasted, or stop asking (Ctrl+K).
    func toggleAskBeforePaste() {
        guard let item = selectedItem else { return }
        do {
            try store.setAsksBeforePaste(!item.asksBeforePaste, ids: [item.id])
        } catch {
            return showError(AppError(error.message))
        }
        log.note("\(item.asksBeforePaste ? "stops asking" : "asks") \(item.id)")
        refresh(after: ControlEvent(.changed, id: item.id))
    }
}
