internal import CGtk

extension MainLoop {
    /// Calls `body` on the main loop whenever `fileDescriptor` has input (or hangs up, or fails) until `body`
    /// returns false or the watch is cancelled. GLib polls the descriptor with the rest of the loop: nothing runs,
    /// and the process does not wake, while nothing arrives.
    @MainActor @discardableResult
    public static func watch(_ fileDescriptor: Int32, _ body: @escaping @MainActor () -> Bool) -> FileWatch {
        let watch = FileWatch()
        let box = CallbackBox<Void, Bool> { [weak watch] in
            let keeps = body()
            if !keeps { watch?.sourceID = 0 }
            return keeps
        }
        let trampoline: @convention(c) (Int32, GIOCondition, UnsafeMutableRawPointer?) -> gboolean = { _, _, data in
            let box = CallbackBox<Void, Bool>.from(data)
            return MainActor.assumeIsolated { box.body(()) } ? 1 : pb_source_remove()
        }
        watch.sourceID = pb_watch_fd(fileDescriptor, trampoline, box.retainedPointer(), releaseUserData)
        return watch
    }

    /// A running `watch(_:_:)`.
    @MainActor public final class FileWatch {
        var sourceID: guint = 0

        /// Whether it still watches.
        public var isActive: Bool { sourceID != 0 }

        /// Stops watching (the descriptor stays open: it belongs to the caller).
        public func cancel() {
            if sourceID != 0 { g_source_remove(sourceID) }
            sourceID = 0
        }

        isolated deinit { cancel() }
    }
}
