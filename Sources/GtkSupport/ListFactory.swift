internal import CGtk
internal import CGtkObjects

/// Makes and fills the row widgets of a list view: `setup` once per slot, `bind` each time a slot shows a row.
///
/// Each row it makes is activated by a click when its `ListView` says so (`activatesOnSingleClick`), and is
/// selected when it takes the keyboard focus (Tab): see `ListView`.
@MainActor
public final class ListFactory: Object {
    public init(setup: @escaping @MainActor (ListItem) -> Void, bind: @escaping @MainActor (ListItem) -> Void) {
        super.init(adopting: UnsafeMutableRawPointer(gtk_signal_list_item_factory_new()))
        Signal.connect(pointer, "setup", pointer: { item in
            setup(ListItem(item))
            pb_list_item_prepare(OpaquePointer(item))
        })
        Signal.connect(pointer, "bind", pointer: { item in
            bind(ListItem(item))
            pb_list_item_prepare(OpaquePointer(item))
        })
    }
}
