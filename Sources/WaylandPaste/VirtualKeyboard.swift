internal import CVirtualKeyboard
import FoundationEssentials
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A keyboard of our own on a Wayland compositor's seat, through the virtual-keyboard protocol
/// (`zwp_virtual_keyboard_manager_v1`, which sway and other wlroots compositors offer) or, on KWin, which offers
/// none, through KWin's fake input (`org_kde_kwin_fake_input`, offered only to a program whose installed .desktop
/// file lists it in `X-KDE-Wayland-Interfaces`): it types a paste chord into whatever window has the seat's
/// keyboard focus, then goes away.
///
/// Wayland lets no client choose which window gets the keys: they go where the compositor's focus is. A picker
/// that had the focus itself therefore types only once its window has closed and the compositor has handed the
/// focus back to the window before it.
///
/// ```swift
/// try VirtualKeyboard.check(display: nil)          // early: does the compositor offer the protocol?
/// // … put the chosen item on the clipboard, close the picker's window …
/// try VirtualKeyboard.type(chord: ["Control_L", "v"], display: nil)
/// ```
public enum VirtualKeyboard {
    /// The protocol's global, as the compositor announces it.
    public static let protocolName = "zwp_virtual_keyboard_manager_v1"
    /// KWin's fake-input protocol, and the version that has keys.
    public static let fakeInputName = "org_kde_kwin_fake_input"
    static let fakeInputKeysVersion: UInt32 = 4

    /// Throws unless the compositor on `display` (a socket name or full path; nil: `$WAYLAND_DISPLAY`) offers a
    /// seat and a way to type: the virtual-keyboard protocol, or KWin's fake input to this program.
    public static func check(display: String?) throws(WaylandPasteError) {
        let connection = try Connection(display)
        connection.close()
    }

    /// Types `chord` (X keysym names: `Control_L`, `Shift_L`, `v`, `Insert`): each key pressed in order, then
    /// released in reverse, with the modifier state following the modifiers among them. Returns once the
    /// compositor has handled every key.
    public static func type(chord: [String], display: String?) throws(WaylandPasteError) {
        var keys: [PasteKeymap.Key] = []
        for name in chord {
            guard let key = PasteKeymap.keys[name] else {
                throw WaylandPasteError(.typingFailed, "The key \(name) is not in pb's paste keymap.")
            }
            keys.append(key)
        }
        let connection = try Connection(display)
        defer { connection.close() }
        try connection.type(keys)
    }
}

/// One connection to the compositor: its registry, the first seat and the virtual-keyboard manager (or KWin's fake
/// input).
private final class Connection {
    let display: OpaquePointer
    let shownName: String
    var registry: OpaquePointer?
    var seat: OpaquePointer?
    var manager: OpaquePointer?
    /// KWin's fake input, bound and authenticated when there is no virtual-keyboard manager.
    var fakeInput: OpaquePointer?
    var seatGlobal: (name: UInt32, version: UInt32)?
    var managerGlobal: UInt32?
    var fakeInputGlobal: (name: UInt32, version: UInt32)?
    /// Whether the compositor announced KWin's own globals (`org_kde_kwin_…`): it is KWin.
    var isKWin = false
    /// The seat's capabilities (wl_seat.capabilities), once the compositor said them.
    var capabilities: UInt32?
    private var isClosed = false

    init(_ name: String?) throws(WaylandPasteError) {
        shownName = name ?? ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] ?? "wayland-0"
        guard let display = wl_display_connect(name) else {
            let failure = SystemError.last("wl_display_connect")
            throw WaylandPasteError(
                .cannotConnect, "Cannot connect to the Wayland compositor '\(shownName)' to paste: \(failure.reason).",
                cause: failure)
        }
        self.display = display
        registry = wl_display_get_registry(display)
        listen(to: registry!)
        try roundtrip()
        let fakeInputGlobal = fakeInputGlobal.flatMap {
            $0.version >= VirtualKeyboard.fakeInputKeysVersion ? $0.name : nil
        }
        guard managerGlobal != nil || fakeInputGlobal != nil else {
            close()
            throw WaylandPasteError(.noVirtualKeyboard, noKeyboardMessage)
        }
        guard let seatGlobal else {
            close()
            throw WaylandPasteError(.noSeat, "The Wayland compositor offers no seat to type the paste on.")
        }
        seat = pb_vk_registry_bind(registry, seatGlobal.name, pb_vk_seat_interface(), 1)
        listen(to: seat!)
        if let managerGlobal {
            manager = pb_vk_registry_bind(registry, managerGlobal, pb_vk_manager_interface(), 1)
        } else if let fakeInputGlobal {
            // KWin hands out the protocol only to programs it lets use it, so the grant is the announcement;
            // authenticate still has to come before any key, or KWin drops them.
            fakeInput = pb_vk_registry_bind(
                registry, fakeInputGlobal, pb_fake_input_interface(), VirtualKeyboard.fakeInputKeysVersion)
            pb_fake_input_authenticate(fakeInput, "pb", "types the paste keystroke of pb --paste")
        }
    }

    /// Why no paste can be typed on this compositor, and what to do.
    private var noKeyboardMessage: String {
        let instead = " Leave out --paste and paste with Ctrl+V."
        if let fakeInputGlobal {
            return "KWin's fake-input protocol (\(VirtualKeyboard.fakeInputName)) is version "
                + "\(fakeInputGlobal.version) here; typing keys needs version \(VirtualKeyboard.fakeInputKeysVersion) "
                + "(KWin 5.27 offers it), so pb cannot type the paste." + instead
        }
        if isKWin {
            return "KWin offers no virtual-keyboard protocol, and its fake-input protocol "
                + "(\(VirtualKeyboard.fakeInputName)) only to a program whose installed .desktop file has Exec= that "
                + "program's path and X-KDE-Wayland-Interfaces=\(VirtualKeyboard.fakeInputName). 'make install' "
                + "installs one for pb (share/applications/pb-paste.desktop); for a pb installed elsewhere, copy "
                + "contrib/pb-paste.desktop to ~/.local/share/applications with Exec= the path of pb, then log in "
                + "again." + instead
        }
        return "The Wayland compositor offers no virtual-keyboard protocol (\(VirtualKeyboard.protocolName)), so pb "
            + "cannot type the paste. Sway and other wlroots compositors offer it, KWin to programs it lets; GNOME "
            + "(mutter) does not." + instead
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let manager { pb_vk_manager_destroy(manager) }
        if let fakeInput { wl_proxy_destroy(fakeInput) }  // version 4 has no destructor request
        if let seat { pb_vk_seat_release(seat) }
        if let registry { wl_proxy_destroy(registry) }
        wl_display_flush(display)
        wl_display_disconnect(display)
    }

    deinit { close() }

    /// Creates the keyboard, gives it the keymap, types, and destroys it.
    func type(_ keys: [PasteKeymap.Key]) throws(WaylandPasteError) {
        // The seat's capabilities come with the seat: whether it had a keyboard before ours.
        try roundtrip()
        let hadKeyboard = (capabilities ?? 0) & UInt32(WL_SEAT_CAPABILITY_KEYBOARD.rawValue) != 0
        if let fakeInput {
            return try typeThroughFakeInput(fakeInput, keys, hadKeyboard: hadKeyboard)
        }
        guard let keyboard = pb_vk_create(manager, seat) else {
            throw WaylandPasteError(.typingFailed, "The Wayland compositor could not make a virtual keyboard.")
        }
        defer {
            pb_vk_destroy(keyboard)
            wl_display_roundtrip(display)
        }
        let fd = PasteKeymap.text.withCString { pb_vk_keymap_file($0, UInt32(strlen($0) + 1)) }
        guard fd >= 0 else {
            let failure = SystemError.last("memfd_create, write or fcntl(F_ADD_SEALS)")
            throw WaylandPasteError(
                .typingFailed, "Cannot make the paste keymap's memory file: \(failure.reason).", cause: failure)
        }
        let size = UInt32(PasteKeymap.text.utf8.count + 1)  // with its terminating NUL, as the format asks
        pb_vk_keymap(keyboard, UInt32(WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue), fd, size)
        Glibc.close(fd)  // libwayland sent a duplicate with the request
        try roundtrip()
        if !hadKeyboard {
            // Ours is the seat's first keyboard: clients bind a wl_keyboard only when the seat says it has one,
            // and keys sent before they did would be lost. (A desktop always has a keyboard; a headless or
            // remote seat may not.)
            usleep(200_000)
            try roundtrip()
        }
        var modifiers: UInt32 = 0
        for key in keys {
            pb_vk_key(keyboard, pb_vk_now_ms(), key.evdev, 1)
            if key.modifier != 0 {
                modifiers |= key.modifier
                pb_vk_modifiers(keyboard, modifiers, 0, 0, 0)
            }
        }
        for key in keys.reversed() {
            pb_vk_key(keyboard, pb_vk_now_ms(), key.evdev, 0)
            if key.modifier != 0 {
                modifiers &= ~key.modifier
                pb_vk_modifiers(keyboard, modifiers, 0, 0, 0)
            }
        }
        try roundtrip()
    }

    /// Types through KWin's fake input: plain evdev keys, which KWin maps through the seat's own keymap and whose
    /// modifiers it follows itself.
    private func typeThroughFakeInput(
        _ input: OpaquePointer, _ keys: [PasteKeymap.Key], hadKeyboard: Bool
    ) throws(WaylandPasteError) {
        if !hadKeyboard {
            // As for a virtual keyboard: clients bind a wl_keyboard only once the seat says it has one.
            usleep(200_000)
            try roundtrip()
        }
        for key in keys { pb_fake_input_key(input, key.evdev, 1) }
        for key in keys.reversed() { pb_fake_input_key(input, key.evdev, 0) }
        try roundtrip()
    }

    /// Sends what is queued and waits until the compositor has handled it; a protocol error becomes a throw.
    func roundtrip() throws(WaylandPasteError) {
        guard wl_display_roundtrip(display) >= 0 else {
            let failure = SystemError("wl_display_roundtrip", errno: wl_display_get_error(display))
            throw WaylandPasteError(
                .typingFailed,
                "The connection to the Wayland compositor '\(shownName)' failed while pasting: \(failure.reason).",
                cause: failure)
        }
    }

    // MARK: - Events

    /// Sends the events of `proxy` (the registry or the seat) to `dispatch`.
    private func listen(to proxy: OpaquePointer) {
        // Unretained: the proxies die in close(), before this object does, so no event reaches a freed one.
        let me = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        wl_proxy_add_dispatcher(
            proxy,
            { me, target, opcode, _, arguments in
                guard let me, let target, let arguments else { return 0 }
                let connection = Unmanaged<Connection>.fromOpaque(me).takeUnretainedValue()
                connection.dispatch(OpaquePointer(target), opcode: opcode, arguments)
                return 0
            }, me, nil)
    }

    private func dispatch(_ proxy: OpaquePointer, opcode: UInt32, _ arguments: UnsafeMutablePointer<wl_argument>) {
        if proxy == registry {
            guard opcode == UInt32(PB_VK_REGISTRY_EVENT_GLOBAL), let interface = arguments[1].s else { return }
            switch String(cString: interface) {
            case "wl_seat" where seatGlobal == nil: seatGlobal = (arguments[0].u, arguments[2].u)
            case VirtualKeyboard.protocolName: managerGlobal = arguments[0].u
            case VirtualKeyboard.fakeInputName: fakeInputGlobal = (arguments[0].u, arguments[2].u)
            case let name where name.hasPrefix("org_kde_kwin_"): isKWin = true
            default: break
            }
        } else if proxy == seat, opcode == 0 {
            // wl_seat.capabilities (name, opcode 1, comes only from version 2).
            capabilities = arguments[0].u
        }
    }
}
