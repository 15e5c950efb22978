internal import CGtk

/// A Swift closure handed to GLib as user data: retained when connected (`Unmanaged.passRetained`), released by
/// GLib's destroy-notify when the handler is disconnected or its object finalized.
///
/// GLib calls it on the thread running the main loop, which is the main thread: trampolines enter the main actor
/// with `MainActor.assumeIsolated` (which checks it).
final class CallbackBox<Arguments, Result> {
    let body: @MainActor (Arguments) -> Result

    init(_ body: @escaping @MainActor (Arguments) -> Result) { self.body = body }

    /// A retained pointer for GLib's user data.
    func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    /// The box behind a user-data pointer, not consuming the reference GLib holds.
    static func from(_ pointer: UnsafeMutableRawPointer?) -> CallbackBox {
        // Every user-data pointer these trampolines receive was made by `retainedPointer()` of this type.
        Unmanaged<CallbackBox>.fromOpaque(pointer!).takeUnretainedValue()
    }
}

/// Releases a box when GLib drops a signal handler (a `GClosureNotify`).
let releaseClosureData: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = {
    data, _ in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}

/// Releases a box when GLib drops user data (a `GDestroyNotify`).
let releaseUserData: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
    guard let data else { return }
    Unmanaged<AnyObject>.fromOpaque(data).release()
}
