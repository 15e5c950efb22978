/// A D-Bus server address ("unix:path=/run/user/1000/bus", "unix:abstract=/tmp/dbus-XXXX,guid=…"): the Unix
/// sockets it names, in order; ";" separates alternatives. Other transports (tcp, launchd) and keys (guid) are
/// ignored.
struct DBusAddress: Equatable {
    enum Socket: Equatable {
        /// A socket file.
        case path(String)
        /// A Linux abstract socket: the name without its leading NUL.
        case abstract(String)
    }

    let sockets: [Socket]

    init(_ text: String) throws(DBusError) {
        var sockets: [Socket] = []
        for entry in text.split(separator: ";") where !entry.isEmpty {
            guard let colon = entry.firstIndex(of: ":") else {
                throw DBusError(
                    .cannotConnect,
                    "The D-Bus address \"\(text)\" is not valid: \"\(entry)\" names no transport.")
            }
            guard entry[..<colon] == "unix" else { continue }
            var keys: [String: String] = [:]
            for pair in entry[entry.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "=") else {
                    throw DBusError(
                        .cannotConnect,
                        "The D-Bus address \"\(text)\" is not valid: \"\(pair)\" is not key=value.")
                }
                keys[String(pair[..<equals])] = try Self.unescape(
                    pair[pair.index(after: equals)...], in: text)
            }
            if let path = keys["path"] {
                sockets.append(.path(path))
            } else if let name = keys["abstract"] {
                sockets.append(.abstract(name))
            }
        }
        guard !sockets.isEmpty else {
            throw DBusError(
                .cannotConnect,
                "The D-Bus address \"\(text)\" names no Unix socket (unix:path=… or unix:abstract=…),"
                    + " the only transport pb supports."
            )
        }
        self.sockets = sockets
    }

    /// A value with its %XX escapes decoded.
    private static func unescape(_ value: Substring, in text: String) throws(DBusError) -> String {
        var bytes: [UInt8] = []
        var utf8 = value.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexDigit), let low = utf8.next().flatMap(hexDigit) else {
                throw DBusError(.cannotConnect, "The D-Bus address \"\(text)\" has a bad %-escape.")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw DBusError(.cannotConnect, "The D-Bus address \"\(text)\" is not UTF-8 once unescaped.")
        }
        return decoded
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
