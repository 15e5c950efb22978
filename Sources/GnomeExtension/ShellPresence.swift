import DBusWire

/// Whether the extension runs in the user's GNOME Shell now: it owns `org.pasteboard.Shell` on the session bus, and
/// its `Version` (readable by anyone).
public enum ShellPresence {
    public enum State: Equatable, Sendable {
        /// No session bus to ask (`DBUS_SESSION_BUS_ADDRESS` unset or unreachable), with why.
        case noBus(String)
        /// Nothing owns the name: the shell did not load the extension (or no GNOME Shell runs).
        case notLoaded
        /// It runs and speaks this interface version.
        case loaded(version: UInt32)
    }

    public static func check(environment: [String: String]) -> State {
        let bus: DBusConnection
        do {
            bus = try DBusConnection.sessionBus(environment: environment)
        } catch {
            return .noBus(error.message)
        }
        defer { bus.close() }
        do {
            guard try bus.getNameOwner("org.pasteboard.Shell") != nil else { return .notLoaded }
            let reply = try bus.callAndWait(
                destination: "org.pasteboard.Shell", path: "/org/pasteboard/Shell",
                interface: "org.freedesktop.DBus.Properties", member: "Get", signature: "ss",
                body: [.string("org.pasteboard.Shell1"), .string("Version")], timeout: .seconds(2))
            return .loaded(version: reply.body.first?.variantValue?.uint32 ?? 0)
        } catch {
            return .notLoaded
        }
    }
}
