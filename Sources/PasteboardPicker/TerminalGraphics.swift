#if canImport(Glibc)
    import Glibc
#endif

/// How the preview draws an image, best first: the kitty graphics protocol, sixel, Unicode half-blocks, or a
/// one-line description.
public enum TerminalGraphics: String, Sendable, CaseIterable {
    case kitty, sixel, blocks, text

    /// What to ask the terminal: a kitty graphics query (a 1×1 image that is only checked, never shown), then
    /// Primary Device Attributes. Every terminal answers DA1, so its reply ends the wait; a kitty reply comes
    /// before it when the protocol is there, and attribute 4 in the DA1 reply means sixel.
    static let query = kittyQuery + deviceAttributesQuery
    static let kittyQuery = "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\"
    static let deviceAttributesQuery = "\u{1B}[c"

    /// Whether the terminal is tmux or GNU screen, which read an APC sequence (`ESC _ … ESC \`) as a title or a
    /// hardstatus line rather than passing it on: the kitty query would stay as the pane's title after pb exits.
    static func isMultiplexer(environment: [String: String]) -> Bool {
        if environment["TMUX"].map({ !$0.isEmpty }) == true || environment["STY"].map({ !$0.isEmpty }) == true {
            return true
        }
        let term = environment["TERM"] ?? ""
        return term.hasPrefix("tmux") || term.hasPrefix("screen")
    }

    /// What the terminal's answers (possibly with keys typed meanwhile) say it can draw; nil until the DA1
    /// reply is there.
    static func parse(_ reply: [UInt8]) -> (graphics: TerminalGraphics, rest: [UInt8])? {
        guard
            let da1 = Self.range(
                of: reply, start: [0x1B, UInt8(ascii: "["), UInt8(ascii: "?")], end: UInt8(ascii: "c"))
        else { return nil }
        let attributes = String(decoding: reply[(da1.lowerBound + 3)..<(da1.upperBound - 1)], as: UTF8.self)
            .split(separator: ";")
        var rest = reply
        rest.removeSubrange(da1)
        var graphics: TerminalGraphics = attributes.contains("4") ? .sixel : .blocks
        if let kitty = Self.range(
            of: rest, start: [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")], end: UInt8(ascii: "\\"))
        {
            if String(decoding: rest[kitty], as: UTF8.self).contains(";OK") { graphics = .kitty }
            rest.removeSubrange(kitty)
        }
        return (graphics, rest)
    }

    /// Asks the terminal on `fileDescriptor` (in raw mode) and waits at most `timeout` milliseconds for the
    /// answer; `.blocks` when none comes. Bytes that are not part of the answer (keys typed meanwhile) are
    /// returned for the key decoder.
    /// Without `asksKitty` (see `isMultiplexer`), only DA1 is asked.
    static func detect(
        terminal fileDescriptor: Int32, timeout: Int, asksKitty: Bool = true
    ) -> (graphics: TerminalGraphics, rest: [UInt8]) {
        let bytes = Array((asksKitty ? query : deviceAttributesQuery).utf8)
        guard bytes.withUnsafeBytes({ write(fileDescriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            return (.blocks, [])
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        let deadline = Self.milliseconds() + timeout
        while reply.count < 4096 {
            let left = deadline - Self.milliseconds()
            guard left > 0 else { break }
            var polled = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&polled, 1, Int32(left))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = read(fileDescriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer[0..<count]
            if let answer = parse(reply) { return answer }
        }
        return (.blocks, reply)
    }

    private static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }

    /// The first run of `bytes` that begins with `start` and ends at the next `end` byte.
    private static func range(of bytes: [UInt8], start: [UInt8], end: UInt8) -> Range<Int>? {
        guard bytes.count >= start.count else { return nil }
        for index in 0...(bytes.count - start.count) where bytes[index..<(index + start.count)].elementsEqual(start) {
            guard let last = bytes[(index + start.count)...].firstIndex(of: end) else { return nil }
            return index..<(last + 1)
        }
        return nil
    }
}
