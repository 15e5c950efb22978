public import Foundation
public import PasteboardControl

/// The daemon's control socket spoken to in raw JSON, through the project's one socket helper: tests send lines
/// the typed client never would (malformed ones, unknown fields, events of their own).
public enum RawControlSocket {
    /// Sends `request` and returns the reply, or nil when nobody answers within `timeout`.
    public static func send(_ request: [String: Any], to path: String, timeout: TimeInterval = 2) -> [String: Any]? {
        guard let data = try? JSONSerialization.data(withJSONObject: request),
            let reply = RawControlConnection(path: path, timeout: timeout)?.request(String(decoding: data, as: UTF8.self))
        else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [String: Any]
    }

    /// Whether something accepts connections at `path`.
    public static func canConnect(to path: String) -> Bool {
        (try? UnixSocket.connect(to: path)) != nil
    }
}

/// One connection to the daemon's control socket, a line at a time.
public final class RawControlConnection {
    public let socket: UnixSocket

    /// Connects, with receives that give up after `timeout`; nil when nothing listens.
    public init?(path: String, timeout: TimeInterval = 5) {
        guard let socket = try? UnixSocket.connect(to: path) else { return nil }
        socket.setReceiveTimeout(timeout)
        self.socket = socket
    }

    /// The descriptor, for tests that send in bulk.
    public var fd: Int32 { socket.fileDescriptor }

    /// Sends one line and returns the reply line.
    public func request(_ line: String) -> String? {
        guard (try? socket.sendAll(Data((line + "\n").utf8))) != nil else { return nil }
        return readLine()
    }

    /// The next line the daemon sends, or nil after the timeout or at the end.
    public func readLine() -> String? {
        guard let line = try? socket.readLine() else { return nil }
        return String(decoding: line, as: UTF8.self)
    }
}
