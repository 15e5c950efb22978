public import PasteboardModel

/// A change of a watched selection's owner, as a backend reports it.
public struct OwnerChange: Sendable, Equatable {
    /// Who holds the selection now.
    public enum Owner: Sendable, Equatable {
        /// Another application: its offer may be read.
        case application
        /// This process.
        case thisProcess
        /// Nobody: the selection was cleared.
        case nobody
    }

    public let selection: Selection
    public let owner: Owner
    /// When the owner changed, in the backend's clock (X server time on X11, a count of changes on Wayland).
    public let time: UInt
    /// Whether the owner may change what it offers later without taking the selection again, unannounced: an X11
    /// owner may (XFixes reports `XSetSelectionOwner` only), so a GTK entry extending its PRIMARY selection says
    /// nothing. The capture pipeline then reads such a selection again a few times (see `CapturePipeline`).
    public let changesSilently: Bool

    public init(_ selection: Selection, owner: Owner, time: UInt, changesSilently: Bool = false) {
        self.selection = selection
        self.owner = owner
        self.time = time
        self.changesSilently = changesSilently
    }
}

/// Where a backend reports what happens to the owners of the selections it watches: the capture pipeline, or a
/// program that only counts changes. Every call comes from the thread that drives the backend.
public protocol SelectionObserver: AnyObject {
    /// The owner of a watched selection changed (ours included).
    func ownerChanged(_ change: OwnerChange)
    /// A selection lost its owner. `clientExited` says the display server saw the owning client itself go (X11's
    /// client close); otherwise the selection only went empty (its window or source was destroyed).
    func ownerGone(_ selection: Selection, clientExited: Bool)
    /// We owned a selection and another application took it.
    func lostOwnership(_ selection: Selection)
    /// A paste-once item we served was pasted, and the selection given up (the next item of a paste stack goes
    /// on now). Default: `lostOwnership`.
    func pastedOnce(_ selection: Selection)
}

extension SelectionObserver {
    public func ownerGone(_ selection: Selection, clientExited: Bool) {}
    public func lostOwnership(_ selection: Selection) {}
    public func pastedOnce(_ selection: Selection) { lostOwnership(selection) }
}

/// How `ClipboardBackend.startReading` began.
public enum ReadStart {
    /// The backend reads the owner's offer into the run, which ends on its own.
    case reading
    /// Nobody owns the selection: nothing is read.
    case empty
    /// This process owns it: its item, and the names it is offered under. Nothing is read.
    case ours(PasteboardItem, offered: [String])
}
