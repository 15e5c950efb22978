internal import CGtk

/// The GLib main loop, which runs GTK, and the explicit bridges into it.
///
/// On Linux, jobs for the main actor do not run by themselves while GLib's loop owns the main thread: code that
/// finishes on another thread comes back with `post(_:)`, which queues the closure on GLib's default context;
/// GLib runs it on the main thread, where it enters the main actor.
public enum MainLoop {
    @MainActor private static var loop: OpaquePointer?

    /// Runs the loop until `quit()`.
    @MainActor public static func run() {
        let loop = g_main_loop_new(nil, 0)
        self.loop = loop
        g_main_loop_run(loop)
        g_main_loop_unref(loop)
        self.loop = nil
    }

    /// Ends `run()`.
    @MainActor public static func quit() {
        if let loop { g_main_loop_quit(loop) }
    }

    /// Runs `body` on the main thread, in the main actor, at the loop's next turn. Safe from any thread.
    public static func post(_ body: @escaping @MainActor @Sendable () -> Void) {
        let box = PostedWork(body)
        let trampoline: @convention(c) (UnsafeMutableRawPointer?) -> gboolean = { data in
            let work = Unmanaged<PostedWork>.fromOpaque(data!).takeUnretainedValue()
            MainActor.assumeIsolated { work.body() }
            return pb_source_remove()
        }
        // GLib's default context is thread-safe; the destroy-notify releases the box after the call.
        g_idle_add_full(G_PRIORITY_DEFAULT, trampoline, Unmanaged.passRetained(box).toOpaque(), releaseUserData)
    }

    /// Runs `body` once after `seconds`, on the main actor; the returned timer can cancel it. With `whenIdle`,
    /// only once nothing more urgent waits, GTK's layout and drawing included (G_PRIORITY_DEFAULT_IDLE): work that
    /// should not delay the next frame.
    @MainActor @discardableResult
    public static func after(
        _ seconds: Double, whenIdle: Bool = false, _ body: @escaping @MainActor () -> Void
    ) -> Timer {
        let timer = Timer()
        let box = CallbackBox<Void, Void> { [weak timer] in
            timer?.sourceID = 0
            body()
        }
        let trampoline: @convention(c) (UnsafeMutableRawPointer?) -> gboolean = { data in
            let box = CallbackBox<Void, Void>.from(data)
            MainActor.assumeIsolated { box.body(()) }
            return pb_source_remove()
        }
        let milliseconds = guint(max(0, seconds * 1000).rounded())
        timer.sourceID = g_timeout_add_full(
            whenIdle ? G_PRIORITY_DEFAULT_IDLE : G_PRIORITY_DEFAULT, milliseconds, trampoline, box.retainedPointer(),
            releaseUserData)
        return timer
    }

    /// A pending `after(_:_:)`.
    @MainActor public final class Timer {
        var sourceID: guint = 0

        /// Whether it has neither fired nor been cancelled.
        public var isPending: Bool { sourceID != 0 }

        /// Stops it from firing; nothing happens when it already has.
        public func cancel() {
            if sourceID != 0 { g_source_remove(sourceID) }
            sourceID = 0
        }
    }
}

/// Work posted from another thread: a Sendable closure that runs on the main actor.
private final class PostedWork: Sendable {
    let body: @MainActor @Sendable () -> Void
    init(_ body: @escaping @MainActor @Sendable () -> Void) { self.body = body }
}
