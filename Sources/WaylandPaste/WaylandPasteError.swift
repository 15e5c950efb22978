public import TextSupport

/// Why the paste keystroke could not be typed on Wayland.
public struct WaylandPasteError: ActionableError {
    /// What went wrong, as a code a caller may test.
    public struct Code: Hashable, Sendable {
        let name: String
        /// The compositor could not be reached.
        public static let cannotConnect = Code(name: "cannotConnect")
        /// The compositor offers no virtual-keyboard protocol (GNOME's mutter, KDE's KWin to ordinary clients).
        public static let noVirtualKeyboard = Code(name: "noVirtualKeyboard")
        /// The compositor has no seat to type on.
        public static let noSeat = Code(name: "noSeat")
        /// A key of the chord is not in the keymap, or the connection failed while typing.
        public static let typingFailed = Code(name: "typingFailed")
    }

    public let code: Code
    public let message: String
    /// The failure behind this one (a failed system call), where there was one.
    public let cause: (any Error)?

    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
