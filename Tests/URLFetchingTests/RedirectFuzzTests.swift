import Foundation
import PasteboardTestSupport
import Testing

@testable import URLFetching

/// Properties of the address checks of Copy from URL, over seeded random and hand-picked hostile input: address
/// scopes against a table of ranges, libcurl's reading of tricky URLs, and malformed Location headers.
@Suite struct RedirectFuzzTests {
    typealias Address = AddressPolicy.Address

    /// The non-global IPv4 ranges, as (network, prefix length, scope): a second statement of `Address.scope`.
    static let ranges: [(UInt32, UInt32, AddressPolicy.Scope)] = [
        (0x7F00_0000, 8, .loopback), (0x0A00_0000, 8, .privateNetwork), (0xAC10_0000, 12, .privateNetwork),
        (0xC0A8_0000, 16, .privateNetwork), (0x6440_0000, 10, .privateNetwork), (0xA9FE_0000, 16, .linkLocal),
        (0x0000_0000, 8, .special), (0xE000_0000, 3, .special),
    ]

    static func referenceScope(_ value: UInt32) -> AddressPolicy.Scope {
        for (network, length, scope) in ranges where value >> (32 - length) == network >> (32 - length) { return scope }
        return .global
    }

    static func bytes(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// Random IPv4 addresses (biased to range edges), bare and wrapped in IPv6 (mapped, NAT64, 6to4), agree with the table.
    @Test func ipv4ScopesMatchTheTableOfRanges() {
        var random = SeededGenerator(seed: 27)
        for round in 0..<200_000 {
            var value = UInt32(truncatingIfNeeded: random.next())
            if round % 3 == 0 {
                let (network, length, _) = Self.ranges[Int(random.next() % UInt64(Self.ranges.count))]
                let edge = length == 0 ? 0 : (UInt32.max >> length)
                value = round % 2 == 0 ? network : network | edge
                if round % 5 == 0 { value = value &+ (random.next() % 2 == 0 ? 1 : UInt32.max) }
            }
            let expected = Self.referenceScope(value)
            let four = Self.bytes(value)
            #expect(Address(bytes: four)!.scope == expected, "\(four)")
            let mapped = Address(bytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + four)!
            let nat64 = Address(bytes: [0x00, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 8) + four)!
            let sixToFour = Address(bytes: [0x20, 0x02] + four + [UInt8](repeating: 0, count: 10))!
            for wrapped in [mapped, nat64, sixToFour] where wrapped.scope != expected {
                Issue.record("\(wrapped) is \(wrapped.scope), its IPv4 address \(four) is \(expected)")
                return
            }
        }
    }

    @Test(arguments: [
        ("::1", AddressPolicy.Scope.loopback), ("::", .special), ("fc00::1", .privateNetwork), ("fdff:ffff::1", .privateNetwork),
        ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("fec0::1", .global), ("ff02::1", .special),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:192.168.1.1", .privateNetwork), ("64:ff9b::a9fe:a9fe", .linkLocal),
        ("2002:7f00:1::", .loopback), ("2606:4700::1111", .global), ("[::1]", .loopback), ("[fe80::1%eth0]", .linkLocal),
        ("1.1.1.1", .global), ("100.63.255.255", .global), ("100.64.0.0", .privateNetwork),
    ])
    func ipv6AndLiteralScopes(literal: String, scope: AddressPolicy.Scope) throws {
        let address = try #require(Address(literal: literal))
        #expect(address.scope == scope)
    }

    /// libcurl's parser decides the host, so the tricks that fool hand-written parsers cannot split the check from the
    /// connection: userinfo, numeric IPv4 forms, IPv6 literals.
    @Test(arguments: [
        ("http://127.0.0.1@evil.example/", "evil.example", 80),
        ("http://evil.example@127.0.0.1/", "127.0.0.1", 80),
        ("http://127.0.0.1:8080@evil.example:81/", "evil.example", 81),
        ("http://user:pass@[::1]:9000/x", "[::1]", 9000),
        ("http://2130706433/", "127.0.0.1", 80),
        ("http://0x7f000001/", "127.0.0.1", 80),
        ("http://017700000001/", "127.0.0.1", 80),
        ("http://127.1/", "127.0.0.1", 80),
        ("http://0177.0.0.1/", "127.0.0.1", 80),
        ("https://3232235777/", "192.168.1.1", 443),
        ("http://[::ffff:7f00:1]/", "[::ffff:7f00:1]", 80),
        ("HTTP://LOCALHOST:1/", "localhost", 1),
    ])
    func curlReadsTheHostThatIsConnectedTo(text: String, host: String, port: Int) throws {
        let address = try FetchAddress.typed(text)
        #expect(address.host.lowercased() == host, "\(address)")
        #expect(address.port == port)
    }

    /// Typed numeric forms of loopback are loopback: allowed only on their own port.
    @Test(arguments: ["http://2130706433:8000/", "http://0x7f.0.0.1:8000/", "http://[::1]:8000/", "http://localhost:8000/"])
    func aTypedLocalAddressAllowsOnlyItsPort(text: String) throws {
        let typed = try FetchAddress.typed(text)
        let policy = AddressPolicy(typedHost: typed.host, port: typed.port)
        let loopback = try #require(Address(literal: typed.host.lowercased() == "localhost" ? "127.0.0.1" : typed.host))
        #expect(policy.allows(loopback, port: 8000))
        #expect(!policy.allows(loopback, port: 8001))
        #expect(!policy.allows(Address(literal: "10.0.0.1")!, port: 8000))
        #expect(!policy.allows(Address(literal: "169.254.169.254")!, port: 8000))
        #expect(policy.allows(Address(literal: "93.184.216.34")!, port: 443))
    }

    @Test func aTypedPublicAddressAllowsNoLocalOne() {
        let policy = AddressPolicy(typedHost: "example.com", port: 443)
        var random = SeededGenerator(seed: 7)
        for _ in 0..<50_000 {
            let value = UInt32(truncatingIfNeeded: random.next())
            let address = Address(bytes: Self.bytes(value))!
            let port = Int(random.next() % 65536)
            #expect(policy.allows(address, port: port) == (Self.referenceScope(value) == .global))
        }
    }

    /// Malformed and hostile Location values, seeded mutations of real ones: following one never leaves http(s),
    /// never loses the host, and what is followed reads back the same.
    @Test func malformedLocationsAreRefusedOrSafe() throws {
        let fetcher = URLFetcher(address: try FetchAddress.typed("http://example.com/start"), userAgent: "tests")
        let current = try FetchAddress.typed("http://example.com/a/b?c")
        let seeds = [
            "http://127.0.0.1:9/", "//127.0.0.1:9/x", "/relative", "../../up", "file:///etc/passwd", "http:/x",
            "http://[::1", "http://[::1]:99999/", "http://a b/", "\u{0}http://x/", "https://user@host@evil/",
            "http:\\\\127.0.0.1\\", "javascript:alert(1)", " http://spaced/ ", "http://%31%32%37.0.0.1/",
            "HtTpS://Example.COM:443/", "http://0/", "http://[::]/", "?q", "#frag", "", ":", "http://",
        ]
        let alphabet = Array("/:@[]%.?#\\ \t0123456789abcdefxX-_~!$&'()*+,;=\u{0}\u{7F}é")
        var random = SeededGenerator(seed: 2027)
        var followed = 0
        for round in 0..<3_000 {
            var text = Array(seeds[round % seeds.count])
            for _ in 0..<Int(random.next() % 4) {
                let position = text.isEmpty ? 0 : Int(random.next() % UInt64(text.count + 1))
                switch random.next() % 3 {
                case 0: text.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
                case 1: if position < text.count { text.remove(at: position) }
                default: if position < text.count { text[position] = alphabet[Int(random.next() % UInt64(alphabet.count))] }
                }
            }
            let location = String(text)
            let answer = Transfer.Answer(code: 0, status: 302, contentType: nil, redirectURL: location, message: "")
            switch fetcher.next(after: answer, from: current, hop: 1) {
            case .success(let target):
                followed += 1
                #expect(target.isWeb, "\(location.debugDescription) -> \(target)")
                #expect(!target.host.isEmpty, "\(location.debugDescription) -> \(target)")
                let again = try FetchAddress.parse(target.text)
                #expect(again == target, "\(location.debugDescription) -> \(target) -> \(String(describing: again))")
            case .failure(let error):
                #expect(error.kind == .refused || error.kind == .httpStatus(302), "\(location.debugDescription): \(error)")
                #expect(!error.message.contains("answered 404"), "\(error)")
            }
        }
        #expect(followed > 300, "too few mutations were valid web addresses (\(followed)) to say much")
    }

    /// The same through the wire: raw Location bytes from the hostile server. Nothing reaches the second server's
    /// port; what is followed stays at the typed host and port.
    @Test func rawHostileLocationHeadersNeverReachAnotherPort() async throws {
        let sandbox = try ProcessSandbox(label: "pbfuzz")
        let server = try await HostileHTTPServer(in: sandbox)
        let other = try await HostileHTTPServer(in: sandbox)
        let port = other.port
        let locations: [String] = [
            "http://127.0.0.1:\(port)/text", "//127.0.0.1:\(port)/text", "http://2130706433:\(port)/text",
            "http://0x7f.1:\(port)/text", "http://[::ffff:127.0.0.1]:\(port)/text", "http://localhost:\(port)/text",
            "http://127.0.0.1@127.0.0.1:\(port)/text", "http://[::1]:\(port)/text", "http://0:\(port)/text",
            "http:\\\\127.0.0.1:\(port)\\text", "/text", "text", "http://127.0.0.1:\(server.port)/text",
            "file:///etc/passwd", "http://[::1", "\u{1}", "http://%00/", "http://127.0.0.1:\(server.port)@127.0.0.1:\(port)/text",
        ]
        for location in locations {
            let fetcher = URLFetcher(address: try FetchAddress.typed(server.rawRedirect(Array(location.utf8))), userAgent: "tests")
            switch await offThePool(fetcher) {
            case .success(let download):
                let reached = try #require(try FetchAddress.parse(download.url))
                #expect(reached.port == server.port, "\(location.debugDescription) reached \(download.url)")
            case .failure(let error):
                #expect(!error.message.contains("answered 404"), "\(location.debugDescription): \(error)")
            }
        }
    }
}
