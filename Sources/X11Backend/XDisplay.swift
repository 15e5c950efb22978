import CX11
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// An open X display with one invisible window of ours, used to own selections and receive conversions.
///
/// Xlib is not thread-safe: a display is confined to the thread that opened it.
final class XDisplay {
    let handle: OpaquePointer
    let root: Window
    let window: Window
    let fixesEventBase: Int32
    /// Whether the server names the process behind a client (X-Resource 1.2).
    let hasClientIDs: Bool
    /// The names of this display's Unix socket as a client's peer (`@/tmp/.X11-unix/X0`, `/tmp/.X11-unix/X0`);
    /// empty for a display reached over the network.
    let socketNames: Set<String>
    private var atoms: [String: Atom] = [:]
    private var names: [Atom: String] = [:]

    init(name: String?) throws(X11Error) {
        pb_x_install_error_handler()
        guard let display = XOpenDisplay(name) else {
            let shown = name ?? ProcessInfo.processInfo.environment["DISPLAY"] ?? "(DISPLAY unset)"
            throw X11Error("Cannot open the X display \(shown): is an X server running, and may this user connect to it?")
        }
        handle = display
        root = XDefaultRootWindow(display)
        var eventBase: Int32 = 0
        var errorBase: Int32 = 0
        guard XFixesQueryExtension(display, &eventBase, &errorBase) != 0 else {
            XCloseDisplay(display)
            throw X11Error("The X server lacks the XFIXES extension, which clipboard watching needs.")
        }
        fixesEventBase = eventBase
        hasClientIDs = pb_x_has_client_ids(display) != 0
        socketNames = Self.socketNames(displayString: XDisplayString(display).map { String(cString: $0) } ?? "")
        window = XCreateSimpleWindow(display, root, -10, -10, 1, 1, 0, 0, 0)
        XSelectInput(display, window, PropertyChangeMask)
        var classHint = XClassHint()
        "pasteboard".withCString { name in
            "Pasteboard".withCString { className in
                classHint.res_name = UnsafeMutablePointer(mutating: name)
                classHint.res_class = UnsafeMutablePointer(mutating: className)
                XSetClassHint(display, window, &classHint)
            }
        }
        var pid = Int(getpid())
        pb_x_set_longs(display, window, atom("_NET_WM_PID"), Atom(XA_CARDINAL), &pid, 1)
        XFlush(display)
    }

    deinit {
        XDestroyWindow(handle, window)
        XCloseDisplay(handle)
    }

    /// `:0`, `:0.1`, `unix:0` are local; `host:0` is not.
    static func socketNames(displayString: String) -> Set<String> {
        guard let colon = displayString.lastIndex(of: ":") else { return [] }
        let host = displayString[..<colon]
        guard host.isEmpty || host == "unix",
            let number = Int(displayString[displayString.index(after: colon)...].split(separator: ".").first ?? "")
        else { return [] }
        return ["@/tmp/.X11-unix/X\(number)", "/tmp/.X11-unix/X\(number)"]
    }

    /// The process id of the client that created `window`, from the X server (X-Resource), or nil when the server
    /// cannot say (no extension, a client on another host, the window is gone).
    func clientPID(of window: Window) -> Int? {
        guard hasClientIDs else { return nil }
        let pid = pb_x_client_pid(handle, XID(window))
        _ = pb_x_take_last_error()  // a window that vanished meanwhile is not an error worth reporting
        return pid > 0 ? pid : nil
    }

    /// The connection's file descriptor, to poll.
    var fileDescriptor: Int32 { XConnectionNumber(handle) }

    func flush() { XFlush(handle) }

    /// Events already received and queued (reads the socket without blocking).
    var pendingEvents: Int32 { XPending(handle) }

    func nextEvent() -> XEvent {
        var event = XEvent()
        XNextEvent(handle, &event)
        return event
    }

    // MARK: - Atoms

    func atom(_ name: String) -> Atom {
        if let atom = atoms[name] { return atom }
        let atom = XInternAtom(handle, name, 0)
        atoms[name] = atom
        names[atom] = name
        return atom
    }

    func name(of atom: Atom) -> String? {
        if atom == 0 { return nil }
        if let name = names[atom] { return name }
        guard let pointer = XGetAtomName(handle, atom) else { return nil }
        let name = String(cString: pointer)
        XFree(pointer)
        names[atom] = name
        atoms[name] = atom
        return name
    }

    // MARK: - Properties

    struct Property {
        var type: Atom
        var format: Int32
        var data: Data
        /// Set when the property holds more than the reader's limit: `data` is then empty and was not read.
        var isOverLimit = false
        /// For format 32: the values (Xlib hands them out as C longs).
        var longs: [UInt] {
            guard format == 32 else { return [] }
            return data.withUnsafeBytes { Array($0.bindMemory(to: UInt.self)) }
        }
    }

    /// Reads a whole property (in pieces, so large ones are fine); nil if it does not exist.
    ///
    /// A property of more than `limit` bytes (as the server stores it) is not read: the result has `isOverLimit`
    /// set and no data. The size is checked before each piece, so a property another client keeps appending to
    /// cannot make the read grow without end.
    func property(_ property: Atom, of window: Window, delete: Bool, limit: Int = .max) -> Property? {
        var result = Property(type: 0, format: 0, data: Data())
        var offset = 0
        while true {
            var type: Atom = 0
            var format: Int32 = 0
            var count: UInt = 0
            var remaining: UInt = 0
            var bytes: UnsafeMutablePointer<UInt8>?
            let status = XGetWindowProperty(
                handle, window, property, offset, 1 << 20, 0, Atom(AnyPropertyType), &type, &format, &count, &remaining, &bytes)
            guard status == Success, type != 0 else {
                if let bytes { XFree(bytes) }
                if offset == 0 { return nil }
                break
            }
            result.type = type
            result.format = format
            // The server's size of the whole property: what was read before (offset counts 32-bit units), this
            // piece, and what remains (in bytes).
            let storedSize = offset * 4 + Int(count) * Int(format / 8) + Int(remaining)
            if storedSize > limit {
                if let bytes { XFree(bytes) }
                result.data = Data()
                result.isOverLimit = true
                break
            }
            // Format 32 data arrive as C longs (8 bytes each on 64-bit); 16 as shorts; 8 as bytes.
            let unit = format == 32 ? MemoryLayout<UInt>.size : Int(format / 8)
            if let bytes, count > 0 { result.data.append(bytes, count: Int(count) * unit) }
            if let bytes { XFree(bytes) }
            offset += Int(count) * Int(format) / 32
            if remaining == 0 { break }
        }
        if delete { XDeleteProperty(handle, window, property) }
        return result
    }

    func setBytes(_ data: Data, property: Atom, type: Atom, on window: Window, append: Bool = false) {
        data.withUnsafeBytes { buffer in
            let base = buffer.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1)!
            _ = pb_x_set_bytes(handle, window, property, type, base, Int32(buffer.count), append ? PropModeAppend : PropModeReplace)
        }
    }

    func setAtoms(_ values: [Atom], property: Atom, type: Atom, on window: Window) {
        var longs = values.map { Int(bitPattern: $0) }
        _ = pb_x_set_longs(handle, window, property, type, &longs, Int32(longs.count))
    }

    /// The largest single property write the server accepts, in bytes, with a margin.
    var maxPropertyBytes: Int {
        let extended = XExtendedMaxRequestSize(handle)
        let units = extended > 0 ? extended : XMaxRequestSize(handle)
        return max(4096, min(units * 4 - 1024, 1 << 20))
    }

    /// A server timestamp: append nothing to a property of our window and read the time of the PropertyNotify.
    /// Other events that arrive meanwhile are returned for the caller to handle.
    func serverTime(otherEvents: inout [XEvent]) -> Time {
        let property = atom("PB_TIMESTAMP")
        setBytes(Data(), property: property, type: Atom(XA_STRING), on: window, append: true)
        flush()
        while true {
            let event = nextEvent()
            if event.type == PropertyNotify && event.xproperty.window == window && event.xproperty.atom == property {
                return event.xproperty.time
            }
            otherEvents.append(event)
        }
    }
}
