/// One key press or mouse event, decoded from what the terminal sends.
enum Key: Equatable, Sendable {
    case character(Character)
    case enter, tab, backTab, backspace, escape, delete
    case up, down, left, right, pageUp, pageDown, home, end
    /// Ctrl plus a letter (`control("c")`), other than the ones with names above (Tab is Ctrl-I, Enter Ctrl-M).
    case control(Character)
    /// Alt (Meta) plus a key, sent as ESC then the key.
    case alt(Character)
    case altEnter
    /// A mouse button press at a cell (0-based column and row); buttons 0–2, 64/65 for the wheel.
    case mouse(button: Int, column: Int, row: Int)
}

/// Turns the bytes read from the terminal into keys. Sequences may arrive split across reads: what is not yet a
/// whole key stays buffered, and a lone ESC becomes `.escape` only when no more bytes follow (`flush()`).
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// The longest sequence kept waiting; anything longer is garbage and is dropped.
    private static let maxPending = 512

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        while !pending.isEmpty {
            guard let (key, length) = Self.decode(pending[...]) else { break }
            pending.removeFirst(length)
            if let key { keys.append(key) }
        }
        if pending.count > Self.maxPending { pending.removeAll() }
        return keys
    }

    /// Whether a lone ESC waits to be told apart from the start of a sequence.
    var isWaiting: Bool { pending == [0x1B] }

    /// After a read that brought nothing more: a lone ESC is the Escape key.
    mutating func flush() -> [Key] {
        defer { pending.removeAll() }
        return pending == [0x1B] ? [.escape] : []
    }

    /// The key at the start of `bytes` and how many bytes it took (nil key: a sequence understood and ignored);
    /// nil when more bytes are needed.
    static func decode(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x1B: return decodeEscape(bytes)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return (nil, 1)
        default: return decodeCharacter(bytes)
        }
    }

    private static func decodeCharacter(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let first = bytes[bytes.startIndex]
        let length = first < 0x80 ? 1 : first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 0
        if length == 0 { return (nil, 1) }  // a stray continuation byte
        guard bytes.count >= length else { return nil }
        let sequence = bytes.prefix(length)
        guard let scalar = String(validating: sequence, as: UTF8.self)?.unicodeScalars.first else { return (nil, 1) }
        return (.character(Character(scalar)), length)
    }

    private static func decodeEscape(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let second = bytes[start + 1]
        if second == 0x0D { return (.altEnter, 2) }
        if second == 0x1B { return (.escape, 1) }
        if second == UInt8(ascii: "_") {
            // ESC _ G …: a kitty graphics answer, up to ST (ESC \) or BEL: ignored. (Alt-_ alone is a key.)
            guard bytes.count >= 3 else { return nil }
            guard bytes[start + 2] == UInt8(ascii: "G") else { return (.alt("_"), 2) }
            var index = start + 2
            while index < bytes.endIndex {
                if bytes[index] == 0x07 { return (nil, index - start + 1) }
                if bytes[index] == 0x1B, index + 1 < bytes.endIndex, bytes[index + 1] == UInt8(ascii: "\\") {
                    return (nil, index - start + 2)
                }
                index += 1
            }
            return nil
        }
        if second != UInt8(ascii: "[") && second != UInt8(ascii: "O") {
            if let (key, length) = decodeCharacter(bytes.dropFirst()), case .character(let character)? = key {
                return (.alt(character), 1 + length)
            }
            return bytes.count >= 2 ? (.escape, 1) : nil
        }
        // CSI (or SS3): parameters and intermediates, then one final byte in 0x40...0x7E.
        var index = start + 2
        while index < bytes.endIndex, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return nil }
        let final = bytes[index]
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        let length = index - start + 1
        switch final {
        case UInt8(ascii: "A"): return (.up, length)
        case UInt8(ascii: "B"): return (.down, length)
        case UInt8(ascii: "C"): return (.right, length)
        case UInt8(ascii: "D"): return (.left, length)
        case UInt8(ascii: "H"): return (.home, length)
        case UInt8(ascii: "F"): return (.end, length)
        case UInt8(ascii: "Z"): return (.backTab, length)
        case UInt8(ascii: "~"):
            switch parameters.split(separator: ";").first {
            case "1", "7": return (.home, length)
            case "4", "8": return (.end, length)
            case "3": return (.delete, length)
            case "5": return (.pageUp, length)
            case "6": return (.pageDown, length)
            default: return (nil, length)
            }
        case UInt8(ascii: "M"), UInt8(ascii: "m"):
            // SGR mouse: ESC [ < button ; column ; row M (press) or m (release); cells count from 1.
            guard parameters.hasPrefix("<"), final == UInt8(ascii: "M") else { return (nil, length) }
            let fields = parameters.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard fields.count == 3 else { return (nil, length) }
            return (.mouse(button: fields[0], column: fields[1] - 1, row: fields[2] - 1), length)
        default:
            return (nil, length)
        }
    }
}
