internal import CGtk

/// A strong reference to a GObject: taken (a floating reference sunk) in `init`, dropped in `deinit`.
///
/// Every wrapper in this module is one of these; the GObject pointer never leaves the module, so no C type is part
/// of its API. GTK is single-threaded: wrappers live on the main actor, and so must their last release.
@MainActor
public class Object {
    /// The GObject. Internal: callers outside the module see only the wrapper. Read by the nonisolated `deinit`;
    /// safe because wrappers are made and released on the main thread only (see the type's note).
    nonisolated(unsafe) let pointer: UnsafeMutableRawPointer

    /// Takes a reference to `pointer`, sinking it if it is floating (new widgets are): for widgets, and for objects
    /// GTK lends to a callback.
    init(_ pointer: UnsafeMutableRawPointer?) {
        // A constructor returning NULL is a GTK programmer error (a critical already printed), not a user's one.
        precondition(pointer != nil, "a GTK constructor returned NULL")
        self.pointer = pointer!
        g_object_ref_sink(self.pointer)
    }

    /// Takes over the full reference a constructor returned (`transfer full`, not floating): models, factories.
    init(adopting pointer: UnsafeMutableRawPointer?) {
        precondition(pointer != nil, "a GTK constructor returned NULL")
        self.pointer = pointer!
    }

    /// A new reference for a GTK function that takes one over (`transfer full`).
    func retainedForTransfer() -> UnsafeMutableRawPointer {
        g_object_ref(pointer)
        return pointer
    }

    /// The same object as a typed C pointer, for GTK functions that take `GtkWindow *` and the like.
    func cast<T>() -> UnsafeMutablePointer<T> { pointer.assumingMemoryBound(to: T.self) }

    /// The same object as an opaque C pointer, for final GTK types Swift imports as `OpaquePointer`.
    var opaque: OpaquePointer { OpaquePointer(pointer) }

    deinit {
        g_object_unref(pointer)
    }
}
