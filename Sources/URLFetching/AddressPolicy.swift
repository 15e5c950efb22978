#if canImport(Glibc)
    import Glibc
#endif

/// Which addresses Copy from URL may connect to. A web page may redirect anywhere, so a download that started at a
/// public address must never reach a service on this machine or its network (server-side request forgery): every
/// connection is checked against the address it really opens (after name resolution, for every redirect), not
/// against the text of a URL. Loopback, private and link-local addresses are allowed only when the user typed such
/// an address (or `localhost`) themselves, and then only that address and port.
public struct AddressPolicy: Sendable, Equatable {
    /// What an address is, for the rule above.
    public enum Scope: String, Sendable, Equatable {
        case global
        case loopback
        /// RFC 1918, the shared address space (100.64/10) and unique local IPv6 (fc00::/7).
        case privateNetwork = "private"
        /// 169.254/16 and fe80::/10.
        case linkLocal = "link-local"
        /// 0.0.0.0/8 and :: (which reach this machine), multicast, broadcast and reserved ranges.
        case special
    }

    /// An address as raw bytes: 4 for IPv4, 16 for IPv6.
    public struct Address: Sendable, Hashable, CustomStringConvertible {
        public let bytes: [UInt8]

        public init?(bytes: [UInt8]) {
            guard bytes.count == 4 || bytes.count == 16 else { return nil }
            self.bytes = bytes
        }

        /// Parses an IP literal in its standard form (`127.0.0.1`, `::1`, `[::1]`); nil for anything else, names
        /// included. (Numeric forms such as `2130706433` are normalised to dotted quads by libcurl's URL parser
        /// before they get here; the connection check sees the real address in any case.)
        public init?(literal: String) {
            var text = literal
            if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
            if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
            var four = [UInt8](repeating: 0, count: 4)
            var sixteen = [UInt8](repeating: 0, count: 16)
            if !text.contains(":"), text.split(separator: ".", omittingEmptySubsequences: false).count == 4,
                inet_pton(AF_INET, text, &four) == 1
            {
                bytes = four
            } else if text.contains(":"), inet_pton(AF_INET6, text, &sixteen) == 1 {
                bytes = sixteen
            } else {
                return nil
            }
        }

        /// The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16), or
        /// this address.
        public var unwrapped: Address {
            guard bytes.count == 16 else { return self }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return Address(bytes: Array(bytes[12..<16]))!
            }
            if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
                return Address(bytes: Array(bytes[12..<16]))!
            }
            if bytes[0] == 0x20, bytes[1] == 0x02 { return Address(bytes: Array(bytes[2..<6]))! }
            return self
        }

        public var scope: Scope {
            let address = unwrapped.bytes
            if address.count == 4 {
                let (a, b) = (address[0], address[1])
                switch a {
                case 127: return .loopback
                case 10: return .privateNetwork
                case 172 where (16...31).contains(b): return .privateNetwork
                case 192 where b == 168: return .privateNetwork
                case 100 where (64...127).contains(b): return .privateNetwork
                case 169 where b == 254: return .linkLocal
                case 0, 224...255: return .special
                default: return .global
                }
            }
            if address[0..<15].allSatisfy({ $0 == 0 }) { return address[15] == 1 ? .loopback : .special }
            if address[0] & 0xFE == 0xFC { return .privateNetwork }
            if address[0] == 0xFE, address[1] & 0xC0 == 0x80 { return .linkLocal }
            if address[0] == 0xFF { return .special }
            return .global
        }

        public var description: String {
            if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
            var text = [CChar](repeating: 0, count: 64)
            var copy = bytes
            guard inet_ntop(AF_INET6, &copy, &text, 64) != nil else { return "?" }
            return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The one non-global destination allowed: what the user typed.
    private enum Exemption: Sendable, Equatable {
        case none
        case address(Address, port: Int)
        /// `localhost`: any loopback address, on this port.
        case loopback(port: Int)
    }

    private let exemption: Exemption

    /// The policy for a download of `host` (libcurl's normalised host of the typed address) on `port`.
    public init(typedHost host: String, port: Int) {
        let lowered = host.lowercased()
        if let address = Address(literal: lowered), address.scope != .global {
            exemption = .address(address.unwrapped, port: port)
        } else if lowered == "localhost" || lowered.hasSuffix(".localhost") {
            exemption = .loopback(port: port)
        } else {
            exemption = .none
        }
    }

    /// Whether a connection to `address` on `port` may be opened.
    public func allows(_ address: Address, port: Int) -> Bool {
        let scope = address.scope
        if scope == .global { return true }
        switch exemption {
        case .none: return false
        case .address(let typed, let typedPort): return typed == address.unwrapped && typedPort == port
        case .loopback(let typedPort): return scope == .loopback && typedPort == port
        }
    }
}
