public import ClipboardBackend
import FoundationEssentials
import PasteboardModel

/// The X11 clipboard as a `ClipboardBackend`: what the daemon and the client clipboard layer drive.
extension X11Clipboard: ClipboardBackend {
    public var name: String { "x11" }

    public func watch(_ selections: Set<Selection>, observer: any SelectionObserver) {
        self.observer = observer
        select(selections)
    }

    public func currentOwnerTime(_ selection: Selection) -> UInt? { currentOwnerTime(selection, timeout: 1) }
}
