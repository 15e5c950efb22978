internal import CGtk

/// Connecting Swift closures to GObject signals: one `@convention(c)` trampoline per signal signature.
@MainActor
enum Signal {
    /// A handle that disconnects the handler.
    struct Connection {
        let instance: UnsafeMutableRawPointer
        let id: UInt

        func disconnect() { g_signal_handler_disconnect(instance, gulong(id)) }
    }

    /// A signal whose handler takes no arguments beyond the instance: `clicked`, `activate`, `changed`.
    @discardableResult
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ name: String, after: Bool = false,
        _ body: @escaping @MainActor () -> Void
    ) -> Connection {
        let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            let box = CallbackBox<Void, Void>.from(data)
            MainActor.assumeIsolated { box.body(()) }
        }
        return connect(
            instance, name, after: after, handler: handler(trampoline),
            data: CallbackBox<Void, Void>(body).retainedPointer())
    }

    /// A signal that returns a boolean: `close-request` (true stops the default handler).
    @discardableResult
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ name: String, returning body: @escaping @MainActor () -> Bool
    ) -> Connection {
        let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
            let box = CallbackBox<Void, Bool>.from(data)
            return MainActor.assumeIsolated { box.body(()) } ? 1 : 0
        }
        return connect(
            instance, name, handler: handler(trampoline),
            data: CallbackBox<Void, Bool>(body).retainedPointer())
    }

    /// A signal with one unsigned argument: a list view's `activate` (the position).
    @discardableResult
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ name: String, position body: @escaping @MainActor (UInt32) -> Void
    ) -> Connection {
        let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?) -> Void = {
            _, position, data in
            let box = CallbackBox<UInt32, Void>.from(data)
            MainActor.assumeIsolated { box.body(position) }
        }
        return connect(
            instance, name, handler: handler(trampoline),
            data: CallbackBox<UInt32, Void>(body).retainedPointer())
    }

    /// A signal with one pointer argument: `notify::…` (a GParamSpec), a factory's `setup` and `bind` (the item).
    @discardableResult
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ name: String,
        pointer body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void
    ) -> Connection {
        let trampoline:
            @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?)
                -> Void = { _, argument, data in
                    let box = CallbackBox<UnsafeMutableRawPointer?, Void>.from(data)
                    // The argument pointer is only used on this thread, during the call.
                    nonisolated(unsafe) let argument = argument
                    MainActor.assumeIsolated { box.body(argument) }
                }
        return connect(
            instance, name, handler: handler(trampoline),
            data: CallbackBox<UnsafeMutableRawPointer?, Void>(body).retainedPointer())
    }

    /// A C function as GLib's untyped handler pointer (what `G_CALLBACK` does). `unsafeBitCast` is safe here: a
    /// `@convention(c)` function is a plain code pointer of the same size as `void *`, and GLib calls it back with
    /// the signature of the signal it was connected to, which is the trampoline's own.
    private static func handler<Function>(_ function: Function) -> UnsafeMutableRawPointer {
        unsafeBitCast(function, to: UnsafeMutableRawPointer.self)
    }

    private static func connect(
        _ instance: UnsafeMutableRawPointer, _ name: String, after: Bool = false, handler: UnsafeMutableRawPointer,
        data: UnsafeMutableRawPointer
    ) -> Connection {
        let id =
            after
            ? pb_signal_connect_after(instance, name, handler, data, releaseClosureData)
            : pb_signal_connect(instance, name, handler, data, releaseClosureData)
        // 0 means GLib refused the signal name for this type: a programmer error, with a critical printed.
        precondition(id != 0, "no signal '\(name)' on this object")
        return Connection(instance: instance, id: UInt(id))
    }
}
