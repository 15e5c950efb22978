import FoundationEssentials
import PasteboardControl
import PasteboardPicker
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's events for an open `pb pick`: a `watch` connection whose every history event (one with a `seq`,
/// from the store's change feed) says the history changed. Without a daemon there is none, and the picker shows the
/// rows as they were when it listed them.
final class DaemonChangeSignal: HistoryChangeSignal {
    private var socket: UnixSocket?

    /// Subscribes, or returns nil when no daemon answers within a second.
    init?(client: ControlClient) {
        do {
            let socket = try client.connect(timeout: 1)
            socket.setReceiveTimeout(1)
            try socket.sendAll(ControlProtocol.line(ControlRequest.watch()))
            guard let line = try socket.readLine(),
                try ControlProtocol.decode(ControlReply.self, from: line).watching == true
            else { return nil }
            let flags = fcntl(socket.fileDescriptor, F_GETFL)
            guard flags >= 0, fcntl(socket.fileDescriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return nil }
            self.socket = socket
        } catch {
            return nil
        }
    }

    var fileDescriptor: Int32 { socket?.fileDescriptor ?? -1 }

    func take() -> Bool {
        guard let socket else { return false }
        var changed = false
        while true {
            let line: Data?
            do {
                line = try socket.readLine()
            } catch where error.code == .noAnswer && error.cause == nil {
                return changed  // nothing more for now
            } catch {
                self.socket = nil  // the daemon went away: the rows stay as they are
                return changed
            }
            guard let line else {
                self.socket = nil
                return changed
            }
            do {
                let event = try ControlProtocol.decode(ControlEvent.self, from: line)
                if event.seq != nil || event.event == .reload { changed = true }
            } catch {
                continue  // not an event (from a newer daemon, say): passed over
            }
        }
    }
}
