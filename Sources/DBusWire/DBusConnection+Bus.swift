extension DBusConnection {
    /// `RequestName` flags.
    public static let allowReplacement: UInt32 = 0x1
    public static let replaceExisting: UInt32 = 0x2
    public static let doNotQueue: UInt32 = 0x4

    /// `RequestName` results.
    public static let primaryOwner: UInt32 = 1
    public static let inQueue: UInt32 = 2
    public static let exists: UInt32 = 3
    public static let alreadyOwner: UInt32 = 4

    /// Asks the bus for the signals that match `rule` ("type='signal',interface='org.pasteboard.Shell1'").
    public func addMatch(_ rule: String) throws(DBusError) {
        try callBus("AddMatch", signature: "s", body: [.string(rule)])
    }

    /// Takes back a rule of `addMatch`.
    public func removeMatch(_ rule: String) throws(DBusError) {
        try callBus("RemoveMatch", signature: "s", body: [.string(rule)])
    }

    /// Asks for the well-known `name` (flags: `doNotQueue`, `replaceExisting`, `allowReplacement`); returns the
    /// bus's answer: `primaryOwner`, `inQueue`, `exists` or `alreadyOwner`.
    public func requestName(_ name: String, flags: UInt32) throws(DBusError) -> UInt32 {
        let reply = try callBus("RequestName", signature: "su", body: [.string(name), .uint32(flags)])
        guard let result = reply.body.first?.uint32 else {
            throw DBusError(.malformed, "The D-Bus bus answered RequestName without a number.")
        }
        return result
    }

    /// Gives up the well-known `name`; returns the bus's answer (1 released, 2 non-existent, 3 not owner).
    @discardableResult
    public func releaseName(_ name: String) throws(DBusError) -> UInt32 {
        let reply = try callBus("ReleaseName", signature: "s", body: [.string(name)])
        return reply.body.first?.uint32 ?? 0
    }

    /// The unique name that owns `name` now, or nil when nobody does.
    public func getNameOwner(_ name: String) throws(DBusError) -> String? {
        do {
            let reply = try callBus("GetNameOwner", signature: "s", body: [.string(name)])
            return reply.body.first?.string
        } catch  where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
    }

    @discardableResult
    private func callBus(_ member: String, signature: String, body: [DBusValue]) throws(DBusError)
        -> DBusMessage
    {
        try callAndWait(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus",
            member: member, signature: signature, body: body)
    }
}
