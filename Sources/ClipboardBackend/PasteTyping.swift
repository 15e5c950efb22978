/// A backend that types the paste keystroke into the focused window itself, where no other client can: GNOME,
/// through its Shell extension (the daemon's `paste` request).
public protocol PasteTyping: AnyObject {
    /// Types `key` (`ctrl+v`, `shift+insert`, `ctrl+shift+v`) into the window that has the keyboard focus.
    func typePaste(_ key: String) throws(BackendError)
}
