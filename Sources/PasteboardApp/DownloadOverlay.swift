import GtkSupport
import PasteboardHistory

/// The card shown over the window while "Copy from URL" downloads: what, how far, and Cancel.
@MainActor
final class DownloadOverlay {
    let root: Box
    private let label = Label()
    private let progress = ProgressBar()
    let cancelButton = Button(label: "_Cancel (Esc)")

    init() {
        label.wrap()
        progress.setSizeRequest(width: 320)
        root = Box(.vertical, spacing: 10, [label, progress, cancelButton])
        // A card in the theme's own colours, not "osd": on its translucent grey the progress bar's text was grey
        // on grey (3.7:1).
        root.addStyleClass("download-card")
        root.horizontalAlignment = .center
        root.verticalAlignment = .center
        cancelButton.horizontalAlignment = .end
        root.isVisible = false
    }

    func begin(_ address: String) {
        label.text = "Downloading \(address.prefix(120))…"
        progress.fraction = 0
        progress.text = "Connecting…"
        root.isVisible = true
    }

    func update(received: Int, expected: Int?) {
        let have = ByteCountFormatting.string(received)
        if let expected, expected > 0 {
            progress.fraction = min(1, Double(received) / Double(expected))
            progress.text = "\(have) of \(ByteCountFormatting.string(expected))"
        } else {
            progress.pulse()
            progress.text = have
        }
    }

    func end() { root.isVisible = false }
}
