import Foundation
import PasteboardModel

/// A display backend plugged into the daemon's loop.
protocol DaemonBackend: AnyObject {
    var name: String { get }
    var fileDescriptor: Int32 { get }
    var nextDeadline: Date? { get }
    func start(daemon: Daemon) throws
    func processEvents()
    func processTimeouts()
    /// Puts `item` on the clipboard; with `once`, only for the first paste; with `expireAfter`, for that long.
    func serve(_ item: PasteboardItem, once: Bool, expireAfter: TimeInterval?, daemon: Daemon) throws
    /// Empties the clipboard.
    func clear()
}
