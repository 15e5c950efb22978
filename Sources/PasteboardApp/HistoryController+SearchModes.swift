import GtkSupport
import PasteboardHistory

extension HistoryController {
    /// The search mode switch beside the search field (SearchModeSwitch.swift): choosing a mode, from the drop-down
    /// or with Ctrl+R anywhere in the window, searches the field's text again in that mode.
    func connectSearchModes() {
        ui.searchMode.dropDown.onSelect { [weak self] in self?.searchModeChanged() }
        ui.window.addShortcut("<Control>r", scope: .global) { [weak self] in
            self?.ui.searchMode.cycle()
            return true
        }
    }

    func searchModeChanged() {
        let mode = ui.searchMode.mode
        log.note("search mode \(mode.rawValue)")
        guard mode != filter.mode || ui.searchField.text != filter.text else { return }
        filter.text = ui.searchField.text
        applyFilter()
    }
}
