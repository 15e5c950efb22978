public import FoundationEssentials
import SystemSupport
public import PasteboardConfiguration
#if canImport(Glibc)
import Glibc
#endif

/// Asks a Syncthing on this machine to rescan a file at once (`POST /rest/db/scan?folder=ID&sub=PATH`) instead of
/// waiting for its watcher's delay. A raw HTTP/1.0 request over loopback, bounded by `timeout`.
public struct SyncthingRescan: Sendable {
    public let settings: SyncSettings.Syncthing
    public var timeout: TimeInterval = 2

    public init(settings: SyncSettings.Syncthing) { self.settings = settings }

    /// Asks for a rescan of `path` (relative to the Syncthing folder's root); returns the HTTP status.
    @discardableResult
    public func rescan(_ path: String) throws(SyncError) -> Int {
        guard let host = settings.url.host, let port = settings.url.port else {
            throw SyncError(.invalidInput, "syncthing-url has no host and port.")
        }
        let folder = Self.queryValue(settings.folderID)
        let sub = Self.queryValue(path)
        let request =
            "POST /rest/db/scan?folder=\(folder)&sub=\(sub) HTTP/1.0\r\nHost: \(host):\(port)\r\n"
            + "X-API-Key: \(settings.apiKey)\r\nContent-Length: 0\r\n\r\n"
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw AtomicFile.error("Cannot reach Syncthing", .last("socket")) }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - floor(timeout)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw AtomicFile.error("Cannot reach Syncthing at \(host):\(port)", .last("connect")) }
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw AtomicFile.error("Cannot send the rescan request to Syncthing", .last("send"))
        }
        var reply = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &reply, reply.count, 0)
        guard count > 12 else { throw SyncError(.io, "Syncthing did not answer the rescan request in time.") }
        let statusLine = String(decoding: reply[0..<count], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw SyncError(.io, "Syncthing's answer is not HTTP.") }
        return status
    }

    /// `text` percent-encoded for a query value: the characters a URL query allows (RFC 3986) but for the ones that
    /// separate or end its parts (`&`, `=`, `+`, `?`, `#`), which are encoded too; each other byte of its UTF-8
    /// becomes `%XX`.
    static func queryValue(_ text: String) -> String {
        let kept = Set("-._~!$'()*,;:@/".utf8)
        var out = ""
        for byte in text.utf8 {
            let isLetterOrDigit =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isLetterOrDigit || kept.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
