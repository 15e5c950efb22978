public import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension ClipboardBackend {
    /// Drives the backend until `done()` holds or `deadline` passes; returns whether `done()` held.
    ///
    /// For a short-lived owner (`pb copy` without a daemon) and for tests; the daemon has a loop of its own.
    @discardableResult
    public func run(until done: () -> Bool, deadline: Date? = nil) -> Bool {
        processEvents()
        while !done() {
            let now = Date()
            if let deadline, now >= deadline { return false }
            var wait = deadline.map { $0.timeIntervalSince(now) } ?? 3600
            if let next = nextDeadline { wait = min(wait, max(0, next.timeIntervalSince(now))) }
            var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(wait * 1000 + 1, Double(Int32.max))))
            // processEvents last: timeouts may flush requests, which can queue events that poll() would not see.
            processTimeouts(now: Date())
            processEvents()
        }
        return true
    }
}
