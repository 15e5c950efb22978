internal import CGtk

/// A button that opens a list of choices and shows the chosen one.
@MainActor
public final class DropDown: Widget {
    private var dropDown: OpaquePointer { opaque }

    public init(choices: [String]) {
        var strings = choices.map { strdup($0) }
        strings.append(nil)
        defer { strings.forEach { free($0) } }
        let widget = strings.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_drop_down_new_from_strings($0)
            }
        }
        super.init(widget)
    }

    /// The index of the chosen entry.
    public var selectedIndex: Int {
        get { Int(gtk_drop_down_get_selected(dropDown)) }
        set { gtk_drop_down_set_selected(dropDown, guint(newValue)) }
    }

    /// Called when the choice changes.
    public func onSelect(_ body: @escaping @MainActor () -> Void) {
        Signal.connect(pointer, "notify::selected", pointer: { _ in body() })
    }
}
