import PasteboardControl

extension HistoryController {
    /// Opens "Pasteboard Settings" (Ctrl+,), or brings it forward.
    func openSettings() {
        SettingsWindow.present(
            parent: ui.window, environment: environment,
            daemon: ControlClient(runtime: RuntimeDirectory.standard(environment: environment)), log: log)
    }
}
