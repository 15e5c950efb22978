import Foundation
import GtkSupport
import PasteboardControl

#if canImport(Glibc)
    import Glibc
#endif

/// The resident popup's listener on `popup.sock` (see `PopupChannel`): one request line per connection, answered
/// with one reply line. It runs on the GLib main loop through descriptor watches, so it costs nothing while no
/// request comes.
@MainActor
final class PopupService {
    private let lock: PopupLock
    private let listener: UnixSocket
    private var watch: MainLoop.FileWatch?
    private var connections: [Int32: Connection] = [:]
    private let handle: @MainActor (PopupRequest) -> PopupReply
    private let log: TestLog

    /// A request line longer than this is refused (a request is a few dozen bytes).
    static let maxRequestBytes = 4096

    /// Takes the lock and listens; `handle` answers each request.
    init(
        channel: PopupChannel, log: TestLog, handle: @escaping @MainActor (PopupRequest) -> PopupReply
    ) throws(PopupLock.Failure) {
        do {
            try channel.runtime.prepare()
        } catch {
            throw PopupLock.Failure(message: error.message, holder: nil, cause: error)
        }
        lock = try PopupLock(path: channel.lockPath)
        do {
            listener = try UnixSocket.listen(at: channel.socketPath, backlog: 8)
        } catch {
            throw PopupLock.Failure(message: error.message, holder: nil, cause: error)
        }
        self.handle = handle
        self.log = log
        watch = MainLoop.watch(listener.fileDescriptor) { [weak self] in
            self?.acceptAll()
            return true
        }
    }

    private func acceptAll() {
        while let socket = listener.accept() {
            // Owner-only, as the daemon's socket: the file is 0600 in a 0700 directory, and the peer is checked.
            guard socket.peerUserID == getuid() else {
                log.note("popup request refused: another user")
                continue
            }
            let connection = Connection(socket: socket)
            connections[socket.fileDescriptor] = connection
            connection.watch = MainLoop.watch(socket.fileDescriptor) { [weak self, weak connection] in
                guard let self, let connection else { return false }
                return self.receive(on: connection)
            }
        }
    }

    /// Reads what arrived; answers once a whole line is there. Returns whether to keep watching.
    private func receive(on connection: Connection) -> Bool {
        let chunk: Data?
        do {
            chunk = try connection.socket.receive(limit: Self.maxRequestBytes)
        } catch {
            drop(connection)
            return false
        }
        guard let chunk else { return true }  // nothing yet
        guard !chunk.isEmpty else {
            drop(connection)
            return false
        }
        connection.buffer.append(chunk)
        guard let newline = connection.buffer.firstIndex(of: 0x0A) else {
            if connection.buffer.count > Self.maxRequestBytes {
                answer(connection, PopupReply(ok: false, error: "The request is longer than 4 KiB."))
                return false
            }
            return true
        }
        let line = Data(connection.buffer[connection.buffer.startIndex..<newline])
        let reply: PopupReply
        do {
            reply = handle(try ControlProtocol.decode(PopupRequest.self, from: line))
        } catch {
            reply = PopupReply(ok: false, error: error.message)
        }
        answer(connection, reply)
        return false
    }

    private func answer(_ connection: Connection, _ reply: PopupReply) {
        // A reply is a short line into an empty socket buffer: it fits at once. A peer gone meanwhile loses it (the
        // popup shows all the same), which the test log says.
        let line = ControlProtocol.line(reply)
        if connection.socket.sendAvailable(line) != line.count { log.note("popup reply not delivered") }
        drop(connection)
    }

    private func drop(_ connection: Connection) {
        connection.watch?.cancel()
        connections[connection.socket.fileDescriptor] = nil
    }

    /// One client connection and what it sent so far.
    private final class Connection {
        let socket: UnixSocket
        var buffer = Data()
        var watch: MainLoop.FileWatch?
        init(socket: UnixSocket) { self.socket = socket }
    }
}
