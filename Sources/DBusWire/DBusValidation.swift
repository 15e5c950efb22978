/// The specification's rules for the strings inside messages.
enum DBusValidation {
    /// An object path: "/" alone, or "/" elements of [A-Za-z0-9_]+ separated by "/", no trailing "/".
    static func isObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/") else { return false }
        var previousWasSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash { return false }
                previousWasSlash = true
            } else if isNameCharacter(byte) {
                previousWasSlash = false
            } else {
                return false
            }
        }
        return true
    }

    /// An interface or error name: two or more dot-separated elements of [A-Za-z0-9_], none starting with a digit,
    /// at most 255 bytes.
    static func isInterfaceName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, !isDigit(first) else { return false }
            return element.allSatisfy(isNameCharacter)
        }
    }

    /// A member name: one element of [A-Za-z0-9_], not starting with a digit, at most 255 bytes.
    static func isMemberName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 255, !isDigit(first) else { return false }
        return bytes.allSatisfy(isNameCharacter)
    }

    /// A bus name: unique (":1.42") or well-known ("org.pasteboard.Shell"), at most 255 bytes.
    static func isBusName(_ name: String) -> Bool {
        var bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let unique = bytes.first == UInt8(ascii: ":")
        if unique { bytes.removeFirst() }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, unique || !isDigit(first) else { return false }
            return element.allSatisfy { isNameCharacter($0) || $0 == UInt8(ascii: "-") }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || isDigit(byte) || byte == UInt8(ascii: "_")
    }
}
