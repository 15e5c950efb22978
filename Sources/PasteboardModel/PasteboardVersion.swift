/// The version of Pasteboard: the one place it is written. `pb --version` and `pasteboard-gtk --version` print it, and
/// `make deb` reads it from this line for the Debian package's version (keep it a plain string literal).
public enum PasteboardVersion {
    public static let current = "0.1.0"
}
