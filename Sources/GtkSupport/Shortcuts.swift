internal import CGtk

/// Key shortcuts through GtkShortcutController: a trigger string and a callback action.
@MainActor
enum Shortcuts {
    static func add(
        _ trigger: String, to widget: UnsafeMutablePointer<GtkWidget>, scope: ShortcutScope, capturing: Bool = false,
        _ action: @escaping @MainActor () -> Bool
    ) {
        // A string GTK cannot parse is a programmer error in this app, not a user's.
        guard let parsed = gtk_shortcut_trigger_parse_string(trigger) else {
            preconditionFailure("not a GTK shortcut trigger: \(trigger)")
        }
        let callback:
            @convention(c) (UnsafeMutablePointer<GtkWidget>?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
                _, _, data in
                let box = CallbackBox<Void, Bool>.from(data)
                return MainActor.assumeIsolated { box.body(()) } ? 1 : 0
            }
        let box = CallbackBox<Void, Bool> { action() }
        let shortcutAction = gtk_callback_action_new(callback, box.retainedPointer(), releaseUserData)
        let shortcut = gtk_shortcut_new(parsed, shortcutAction)  // takes both references
        let controller = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_set_scope(
            controller, scope == .global ? GTK_SHORTCUT_SCOPE_GLOBAL : GTK_SHORTCUT_SCOPE_LOCAL)
        gtk_shortcut_controller_add_shortcut(controller, shortcut)
        // Capturing: before the widget's own key bindings (and its children's) see the key.
        if capturing { gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_CAPTURE) }
        gtk_widget_add_controller(widget, controller)  // takes the controller's reference
    }
}

/// Where a shortcut applies.
public enum ShortcutScope: Sendable {
    /// While the focus is in the widget.
    case local
    /// Anywhere in the widget's window.
    case global
}
