import GtkSupport

/// A small modal window asking to confirm a destructive action (GTK 4.8 has no GtkAlertDialog).
@MainActor
final class ConfirmationWindow {
    private let window: Window
    private var answered = false

    /// - Parameters:
    ///   - action: The confirming button's label ("Clear History").
    ///   - confirmed: Called with true for the action, false for Cancel, Escape or closing the window.
    init(parent: Window, title: String, message: String, action: String, confirmed: @escaping @MainActor (Bool) -> Void)
    {
        window = Window(title: title, width: 420, height: 150)
        window.setTransient(for: parent, modal: true)
        window.isResizable = false
        let text = Label(message)
        text.wrap()
        text.textAlignment = 0
        text.expandsVertically = true
        let cancel = Button(label: "_Cancel")
        let confirm = Button(label: action)
        confirm.addStyleClass("destructive-action")
        let buttons = Box(.horizontal, spacing: 8, [cancel, confirm])
        buttons.horizontalAlignment = .end
        let content = Box(.vertical, spacing: 16, [text, buttons])
        content.setMargins(18)
        window.setChild(content)
        let answer: @MainActor (Bool) -> Void = { [weak self] value in
            guard let self, !self.answered else { return }
            self.answered = true
            confirmed(value)
            self.window.destroy()
        }
        cancel.onClick { answer(false) }
        confirm.onClick { answer(true) }
        window.addShortcut("Escape", scope: .global) {
            answer(false)
            return true
        }
        window.onCloseRequest {
            answer(false)
            return false
        }
        window.setDefaultWidget(confirm)
        window.setFocus(cancel)
    }

    func present() { window.present() }
}
