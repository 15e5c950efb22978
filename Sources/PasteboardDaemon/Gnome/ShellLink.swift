import ClipboardBackend
import DBusWire

/// The daemon's side of the GNOME Shell extension's interface (`org.pasteboard.Shell1`, docs/gnome.md), on the
/// session bus: it owns `org.pasteboard.Daemon` (the extension answers that name's owner only), follows the
/// extension's coming and going, passes its `OwnerChanged` signals on, and makes its calls.
///
/// Single-threaded: driven by the backend's loop (`processIncoming`).
final class ShellLink {
    static let shellName = "org.pasteboard.Shell"
    static let daemonName = "org.pasteboard.Daemon"
    static let path = "/org/pasteboard/Shell"
    static let interface = "org.pasteboard.Shell1"
    /// The interface version this daemon speaks (the extension's `Version` property).
    static let version: UInt32 = 2

    let bus: DBusConnection
    /// The extension's unique name on the bus while it runs and speaks `version`, else nil.
    private(set) var shell: String?
    /// Why the extension is not used although it runs (an older version), or nil.
    private(set) var problem: String?
    /// An owner change the extension reported.
    var onOwnerChanged: ((ShellOwner) -> Void)?
    /// The extension came (true) or went (false).
    var onPresence: ((Bool) -> Void)?

    /// Connects to the session bus of `environment` and takes the daemon's name there.
    init(environment: [String: String]) throws(GnomeError) {
        do {
            bus = try DBusConnection.sessionBus(environment: environment)
        } catch {
            throw GnomeError("Could not connect to the session bus: \(error.message)", cause: error)
        }
        let result: UInt32
        do {
            // DO_NOT_QUEUE: a second daemon of this user must not wait in line for the name, silently.
            result = try bus.requestName(Self.daemonName, flags: DBusConnection.doNotQueue)
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                    + "member='NameOwnerChanged',arg0='\(Self.shellName)'")
        } catch {
            throw GnomeError("Could not take \(Self.daemonName) on the session bus: \(error.message)", cause: error)
        }
        if result != DBusConnection.primaryOwner && result != DBusConnection.alreadyOwner {
            throw GnomeError(
                "Another program owns \(Self.daemonName) on the session bus (another pb daemon?); stop it first.")
        }
        bus.onSignal = { [weak self] message in self?.handle(message) }
        do {
            if let owner = try bus.getNameOwner(Self.shellName) { adopt(owner) }
        } catch {
            throw GnomeError("Could not ask the session bus for \(Self.shellName): \(error.message)", cause: error)
        }
    }

    var fileDescriptor: Int32 { bus.fileDescriptor }
    var isPresent: Bool { shell != nil }

    /// The current owner of `selection`, asked and waited for (at start, and when the extension comes).
    func currentOwner(_ selection: Selection) -> ShellOwner? {
        guard shell != nil else { return nil }
        do {
            let reply = try bus.callAndWait(
                destination: Self.shellName, path: Self.path, interface: Self.interface, member: "GetSelection",
                signature: "s", body: [.string(selection.rawValue)], timeout: .seconds(2))
            return ShellOwner(selection: selection, values: reply.body[...])
        } catch {
            return nil
        }
    }

    /// Asks the extension to read `type` of the owner `serial` names into `fd` (sent with the call, which
    /// duplicates it), up to `maxBytes`; `reply` gets the size, then the bytes follow in the pipe.
    func readType(
        _ selection: Selection, serial: UInt32, type: String, into fd: Int32, maxBytes: Int,
        timeout: Duration, reply: @escaping (Result<UInt64, DBusError>) -> Void
    ) throws(DBusError) {
        try call(
            "ReadType", signature: "susht",
            body: [.string(selection.rawValue), .uint32(serial), .string(type), .unixFD(0), .uint64(UInt64(maxBytes))],
            fds: [fd], timeout: timeout
        ) { result in
            reply(result.flatMap { message in
                guard let size = message.body.first?.uint64 else {
                    return .failure(DBusError(.malformed, "The GNOME Shell extension answered ReadType without a size."))
                }
                return .success(size)
            })
        }
    }

    /// Types `key` (`ctrl+v`, `shift+insert`, `ctrl+shift+v`) into the focused window, and waits for it.
    func pasteAndWait(_ key: String) throws(DBusError) {
        guard let shell else { throw DBusError(.disconnected, "The Pasteboard GNOME Shell extension is not running.") }
        _ = try bus.callAndWait(
            destination: shell, path: Self.path, interface: Self.interface, member: "Paste", signature: "s",
            body: [.string(key)], timeout: .seconds(2))
    }

    /// Empties `selection` when `serial` still names its owner.
    func clear(_ selection: Selection, serial: UInt32, reply: @escaping (Result<Void, DBusError>) -> Void) throws(DBusError) {
        try call("Clear", signature: "su", body: [.string(selection.rawValue), .uint32(serial)]) { reply($0.map { _ in () }) }
    }

    /// Serves one type from the shell's memory: `fd` holds its `size` bytes.
    func offer(
        _ selection: Selection, type: String, fd: Int32, size: Int, reply: @escaping (Result<Void, DBusError>) -> Void
    ) throws(DBusError) {
        try call(
            "Offer", signature: "ssht", body: [.string(selection.rawValue), .string(type), .unixFD(0), .uint64(UInt64(size))],
            fds: [fd]
        ) { reply($0.map { _ in () }) }
    }

    private func call(
        _ member: String, signature: String, body: [DBusValue], fds: [Int32] = [], timeout: Duration = .seconds(5),
        reply: @escaping (Result<DBusMessage, DBusError>) -> Void
    ) throws(DBusError) {
        guard let shell else { throw DBusError(.disconnected, "The Pasteboard GNOME Shell extension is not running.") }
        try bus.call(
            destination: shell, path: Self.path, interface: Self.interface, member: member, signature: signature,
            body: body, fds: fds, timeout: timeout, reply: reply)
    }

    // MARK: - Signals

    private func handle(_ message: DBusMessage) {
        if message.interface == "org.freedesktop.DBus", message.member == "NameOwnerChanged",
            message.sender == "org.freedesktop.DBus"
        {
            guard message.body.count == 3, message.body[0].string == Self.shellName, let owner = message.body[2].string
            else { return }
            let wasPresent = shell != nil
            shell = nil
            problem = nil
            if !owner.isEmpty { adopt(owner) }
            if wasPresent || shell != nil { onPresence?(shell != nil) }
            return
        }
        // Only the extension's own signals count: any client could send one of this name.
        guard let shell, message.sender == shell, message.interface == Self.interface,
            message.member == "OwnerChanged", message.path == Self.path, let name = message.body.first?.string,
            let selection = Selection(rawValue: name),
            let owner = ShellOwner(selection: selection, values: message.body.dropFirst())
        else { return }
        onOwnerChanged?(owner)
    }

    /// Uses the extension at unique name `owner` when it speaks this daemon's version.
    private func adopt(_ owner: String) {
        do {
            let reply = try bus.callAndWait(
                destination: owner, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                signature: "ss", body: [.string(Self.interface), .string("Version")], timeout: .seconds(2))
            guard case .variant(let value)? = reply.body.first, let version = value.uint32 else {
                problem = "the Pasteboard GNOME Shell extension did not say its version"
                return
            }
            guard version == Self.version else {
                problem =
                    "the Pasteboard GNOME Shell extension speaks version \(version), this pb \(Self.version): run "
                    + "'pb gnome-extension install', then log out and in"
                return
            }
            shell = owner
        } catch {
            problem = "the Pasteboard GNOME Shell extension does not answer: \(error.message)"
        }
    }
}
