import Foundation
import PasteboardTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.0 server on 127.0.0.1 serving fixed pages from memory, for a browser under test: it lives in the
/// test process (a thread blocked in `accept`), so it cannot outlive it.
///
/// Each connection gets one response and is closed. A request is read up to its blank line, at most 16 KiB, within
/// 5 s; anything else gets 400 or 404.
///
/// ```swift
/// let server = try LoopbackHTTPServer(pages: ["/text.html": ("text/html", Data(html.utf8))])
/// let url = server.url("/text.html")  // http://127.0.0.1:PORT/text.html
/// ```
final class LoopbackHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let pages: Mutex<[String: (type: String, body: Data)]>

    init(pages: [String: (type: String, body: Data)]) throws {
        self.pages = Mutex(pages)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SetupFailure("socket() failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let problem = String(cString: strerror(errno))
            close(descriptor)
            throw SetupFailure("Cannot listen on 127.0.0.1: \(problem)")
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.name = "LoopbackHTTPServer"
        thread.start()
    }

    /// The address of `path` on this server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Adds or replaces a page.
    func setPage(_ path: String, type: String, body: Data) {
        pages.withLock { $0[path] = (type, body) }
    }

    private func serve() {
        while true {
            // Children spawned meanwhile do not inherit it: ChildProcess closes every descriptor above 2.
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            respond(on: connection)
            close(connection)
        }
    }

    private func respond(on connection: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 16384 && request.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return }
            request.append(contentsOf: buffer[0..<count])
        }
        let line = String(decoding: request.prefix(while: { $0 != 0x0D }), as: UTF8.self).split(separator: " ")
        var status = "400 Bad Request"
        var type = "text/plain"
        var body = Data("bad request\n".utf8)
        if line.count >= 2, line[0] == "GET" {
            let path = String(line[1].split(separator: "?", maxSplits: 1).first ?? "")
            if let page = pages.withLock({ $0[path] }) {
                (status, type, body) = ("200 OK", page.type, page.body)
            } else {
                (status, body) = ("404 Not Found", Data("not found\n".utf8))
            }
        }
        let head =
            "HTTP/1.0 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        var response = Data(head.utf8)
        response.append(body)
        response.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(connection, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }
}
