import ClipboardBackend
import DBusWire

/// An owner of a selection as the GNOME Shell extension reports it (`OwnerChanged`, `GetSelection`).
struct ShellOwner: Equatable {
    /// Who set the owner, as the extension tells them apart.
    enum Origin: String {
        /// The selection is empty.
        case none = ""
        /// A Wayland or X11 client.
        case application
        /// Mutter's own text copy of an owner that just went (its clipboard manager).
        case saved
        /// Another memory owner of the shell (a copy in the shell's own entries).
        case shell
        /// The extension, for this daemon (`Clear`, `Offer`).
        case pasteboard
    }

    let selection: Selection
    /// The offered MIME types, in the owner's order, without the X11 operation targets.
    let types: [String]
    /// The focused application's id when the owner changed ("" for none).
    let appID: String
    /// Counts the owner changes of both selections.
    let serial: UInt32
    let origin: Origin

    /// From the `(s as s u s)` values of a signal or the `(as s u s)` of a `GetSelection` reply with `selection`.
    init?(selection: Selection, values: ArraySlice<DBusValue>) {
        let values = Array(values)
        guard values.count == 4, let types = values[0].stringArray, let appID = values[1].string,
            let serial = values[2].uint32, let origin = values[3].string
        else { return nil }
        self.selection = selection
        self.types = types
        self.appID = appID
        self.serial = serial
        // An origin this daemon does not know (a newer extension's) is an application's: read it as a copy.
        self.origin = Origin(rawValue: origin) ?? .application
    }

    init(selection: Selection, types: [String], appID: String, serial: UInt32, origin: Origin) {
        self.selection = selection
        self.types = types
        self.appID = appID
        self.serial = serial
        self.origin = origin
    }
}
