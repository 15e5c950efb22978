internal import CGtk
internal import CGtkObjects

/// A GListModel whose length and rows come from Swift closures, asked only for the rows a list view shows: a
/// history of a million items costs what its visible rows cost.
///
/// Each row GTK asks for is a new `PbRow` object carrying the object `row(_:)` returned; a `ListItem` hands it
/// back as `payload`. Tell the list when the data changes with `itemsChanged(at:removed:added:)`.
@MainActor
public final class VirtualList: Object {
    /// The closures behind the C callbacks, released with the model.
    private final class Source {
        let count: @MainActor () -> Int
        let row: @MainActor (Int) -> AnyObject?

        init(count: @escaping @MainActor () -> Int, row: @escaping @MainActor (Int) -> AnyObject?) {
            self.count = count
            self.row = row
        }
    }

    /// - Parameters:
    ///   - count: The number of rows now.
    ///   - row: The object for the row at a position, or nil when there is none any more.
    public init(count: @escaping @MainActor () -> Int, row: @escaping @MainActor (Int) -> AnyObject?) {
        let source = Source(count: count, row: row)
        let countCallback: @convention(c) (UnsafeMutableRawPointer?) -> guint = { context in
            let source = Unmanaged<Source>.fromOpaque(context!).takeUnretainedValue()
            return guint(clamping: MainActor.assumeIsolated { source.count() })
        }
        let rowCallback: @convention(c) (UnsafeMutableRawPointer?, guint) -> OpaquePointer? = { context, position in
            let source = Unmanaged<Source>.fromOpaque(context!).takeUnretainedValue()
            // The payload travels out of the main-actor closure as an address (a pointer is not Sendable); it is
            // made, used and released on this one thread.
            let address = MainActor.assumeIsolated {
                source.row(Int(position)).map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) }
            }
            guard let address, let payload = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
            return pb_row_new(payload, releaseUserData)
        }
        let model = pb_list_model_new(
            countCallback, rowCallback, Unmanaged.passRetained(source).toOpaque(), releaseUserData)
        super.init(adopting: UnsafeMutableRawPointer(model))
    }

    /// Says that at `position`, `removed` rows went and `added` rows came (g_list_model_items_changed).
    public func itemsChanged(at position: Int, removed: Int, added: Int) {
        guard removed > 0 || added > 0 else { return }
        g_list_model_items_changed(opaque, guint(position), guint(removed), guint(added))
    }

    /// The payload of a PbRow object.
    static func payload(ofRow row: UnsafeMutableRawPointer?) -> AnyObject? {
        guard let row, pb_is_a(row, pb_row_get_type()) != 0, let payload = pb_row_get_payload(OpaquePointer(row)) else {
            return nil
        }
        return Unmanaged<AnyObject>.fromOpaque(payload).takeUnretainedValue()
    }
}
