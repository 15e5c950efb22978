import CWayland
public import ClipboardBackend
import FoundationEssentials

/// The Wayland clipboard as a `ClipboardBackend`: what the daemon and the client clipboard layer drive.
extension WaylandClipboard: ClipboardBackend {
    public var name: String { "wayland" }

    public func watch(_ selections: Set<Selection>, observer: any SelectionObserver) {
        watched = hasPrimary ? selections : selections.subtracting([.primary])
        self.observer = observer
    }

    /// Wayland has no clipboard-manager role: keeping the clipboard alive is done by taking the selection over
    /// when it goes empty (see `CaptureSink.ownerGone`).
    public func becomeClipboardManager() -> Bool { true }

    /// A count of the selection changes this process saw (Wayland has no server time), or nil when empty.
    public func currentOwnerTime(_ selection: Selection) -> UInt? {
        owned[selection]?.time ?? (current[selection] != nil ? clock : nil)
    }
}
