import GtkSupport

/// "Allow *reader* to paste from *source*?" with Allow and Don't Allow: the app's side of Allow Paste. Closing the
/// window, Escape or the daemon's deadline count as Don't Allow.
@MainActor
final class PasteApprovalWindow {
    static let title = "Allow Paste"

    private let window: Window
    private var answered = false
    /// The daemon's number for the question.
    let request: Int

    /// - Parameters:
    ///   - question: "Allow xclip to paste from KeePassXC?"
    ///   - detail: what is asked for, and how long the question stays open.
    ///   - answer: Called once, with true for Allow.
    init(request: Int, question: String, detail: String, answer: @escaping @MainActor (Bool) -> Void) {
        self.request = request
        window = Window(title: Self.title, width: 440, height: 150)
        window.isResizable = false
        let heading = Label(question)
        heading.addStyleClass("preview-heading")
        heading.wrap()
        heading.textAlignment = 0
        let text = Label(detail)
        text.addStyleClass("dim-label")
        text.wrap()
        text.textAlignment = 0
        text.expandsVertically = true
        let deny = Button(label: "_Don't Allow")
        let allow = Button(label: "_Allow")
        allow.addStyleClass("suggested-action")
        let buttons = Box(.horizontal, spacing: 8, [deny, allow])
        buttons.horizontalAlignment = .end
        let content = Box(.vertical, spacing: 12, [heading, text, buttons])
        content.setMargins(18)
        window.setChild(content)
        let decide: @MainActor (Bool) -> Void = { [weak self] value in
            guard let self, !self.answered else { return }
            self.answered = true
            answer(value)
            self.window.destroy()
        }
        deny.onClick { decide(false) }
        allow.onClick { decide(true) }
        window.addShortcut("Escape", scope: .global) {
            decide(false)
            return true
        }
        window.onCloseRequest {
            decide(false)
            return false
        }
        // Enter means Don't Allow: a paste is let through only on purpose.
        window.setDefaultWidget(deny)
        window.setFocus(deny)
    }

    func present() { window.present() }

    /// The daemon settled the question (another app answered, or time ran out): closes without answering.
    func dismiss() {
        guard !answered else { return }
        answered = true
        window.destroy()
    }
}
