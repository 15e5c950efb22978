internal import CGtk
internal import CGtkObjects

/// A GListModel whose length and rows come from Swift closures, asked only for the rows a list view shows: a
/// history of a million items costs what its visible rows cost.
///
/// Each row GTK asks for is a `PbRow` object carrying the object `row(_:)` returned; a `ListItem` hands it back as
/// `payload`. Tell the list when the data changes with `itemsChanged(at:removed:added:)`.
///
/// The same payload object always comes back as the same `PbRow` (of the last `rowCacheLimit` made): GTK's list
/// view finds the row widget that showed an item again by that object's address when rows are replaced, and keeps
/// it as it was, bound and laid out. So a `row(_:)` that returns the same object for an unchanged row (see
/// `HistoryRows`' payloads) lets a search that keeps some rows rebind only the others.
@MainActor
public final class VirtualList: Object {
    /// The closures behind the C callbacks, released with the model.
    private final class Source {
        let count: @MainActor () -> Int
        let row: @MainActor (Int) -> AnyObject?
        /// The PbRow made for each payload object (one reference each, held here), oldest first in `order`.
        /// The key stays valid while the entry lives: the PbRow keeps its payload alive.
        var rows: [ObjectIdentifier: OpaquePointer] = [:]
        var order: [ObjectIdentifier] = []

        init(count: @escaping @MainActor () -> Int, row: @escaping @MainActor (Int) -> AnyObject?) {
            self.count = count
            self.row = row
        }

        /// A new reference to the PbRow of `payload`, made once while it is among the last `rowCacheLimit`.
        func pbRow(for payload: AnyObject) -> OpaquePointer? {
            let key = ObjectIdentifier(payload)
            if let row = rows[key] {
                g_object_ref(UnsafeMutableRawPointer(row))
                return row
            }
            guard let row = pb_row_new(Unmanaged.passRetained(payload).toOpaque(), releaseUserData) else { return nil }
            rows[key] = row
            order.append(key)
            if order.count > VirtualList.rowCacheLimit, let oldest = order.first, let evicted = rows[oldest] {
                order.removeFirst()
                rows[oldest] = nil
                g_object_unref(UnsafeMutableRawPointer(evicted))
            }
            g_object_ref(UnsafeMutableRawPointer(row))
            return row
        }

        deinit {
            // The model is finalized on the main thread, where GTK runs; so is this, with it.
            for row in rows.values { g_object_unref(UnsafeMutableRawPointer(row)) }
        }
    }

    /// How many PbRow objects are kept for reuse: a few screens of rows.
    nonisolated public static let rowCacheLimit = 256

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
            // The row travels out of the main-actor closure as an address (a pointer is not Sendable); it is made,
            // used and released on this one thread.
            let address = MainActor.assumeIsolated {
                source.row(Int(position)).flatMap { source.pbRow(for: $0) }.map { UInt(bitPattern: $0) }
            }
            return address.flatMap { OpaquePointer(bitPattern: $0) }
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
