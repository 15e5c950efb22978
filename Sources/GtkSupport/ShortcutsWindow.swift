internal import CGtk

/// GTK's keyboard shortcuts window (GtkShortcutsWindow, made from a builder description of `sections`), shown over
/// `parent`.
@MainActor
public final class ShortcutsWindow: Widget {
    /// A group of shortcuts under a title; each shortcut is a GTK accelerator (`<Control>f`, several separated by
    /// spaces) and what it does.
    public struct Group: Sendable {
        public let title: String
        public let shortcuts: [(accelerator: String, title: String)]

        public init(_ title: String, _ shortcuts: [(accelerator: String, title: String)]) {
            self.title = title
            self.shortcuts = shortcuts
        }
    }

    public init(title: String, groups: [Group], parent: Window) {
        let builder = gtk_builder_new_from_string(Self.description(of: groups), -1)!
        let object = gtk_builder_get_object(builder, "shortcuts")
        super.init(UnsafeMutableRawPointer(object))
        g_object_unref(UnsafeMutableRawPointer(builder))
        gtk_window_set_transient_for(cast(), parent.gtkWindow)
        gtk_window_set_modal(cast(), 1)
        gtk_window_set_title(cast(), title)
    }

    public func present() { gtk_window_present(cast()) }

    /// The builder description: one section, a group per `Group`.
    static func description(of groups: [Group]) -> String {
        var xml = "<interface><object class=\"GtkShortcutsWindow\" id=\"shortcuts\">"
        xml += "<child><object class=\"GtkShortcutsSection\"><property name=\"section-name\">main</property>"
        for group in groups {
            xml += "<child><object class=\"GtkShortcutsGroup\"><property name=\"title\">\(escaped(group.title))</property>"
            for shortcut in group.shortcuts {
                xml += "<child><object class=\"GtkShortcutsShortcut\">"
                xml += "<property name=\"accelerator\">\(escaped(shortcut.accelerator))</property>"
                xml += "<property name=\"title\">\(escaped(shortcut.title))</property></object></child>"
            }
            xml += "</object></child>"
        }
        return xml + "</object></child></object></interface>"
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
