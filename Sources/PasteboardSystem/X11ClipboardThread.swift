import Foundation
import PasteboardModel
import X11Backend
#if canImport(Glibc)
import Glibc
#endif

/// Runs an `X11Clipboard` on a thread of its own (Xlib is not thread-safe) for a program that is not a
/// daemon: it serves what the program copies for as long as the program lives, reads the clipboard on request,
/// and counts owner changes through XFixes. Other threads hand it work and wait for the answer.
final class X11ClipboardThread: @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `changeCount` and `watchers` are guarded by `lock`; the X11Clipboard is created
    // and used only on the thread this class starts.
    private let lock = NSLock()
    private var jobs: [(X11Clipboard) -> Void] = []
    private var changeCount = 0
    private var watchers: [Int: AsyncStream<Int>.Continuation] = [:]
    private var nextWatcher = 0
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Opens `display` on a new thread; throws when it cannot be opened.
    init(display: String) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PasteboardError(.unavailable, "Cannot create a pipe.") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let ready = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let thread = Thread { [self] in
            let clipboard: X11Clipboard
            do {
                clipboard = try X11Clipboard(displayName: display, watch: [.clipboard])
            } catch {
                failure.message = "\(error)"
                ready.signal()
                return
            }
            clipboard.capturesOnChange = false
            clipboard.onOwnerChange = { [weak self] selection, time in
                guard selection == .clipboard else { return }
                self?.noteChange(Int(time))
            }
            if let current = clipboard.currentOwnerTime(.clipboard) { self.noteChange(Int(current)) }
            ready.signal()
            self.loop(clipboard)
        }
        thread.name = "pasteboard-x11"
        thread.start()
        ready.wait()
        if let message = failure.message { throw PasteboardError(.unavailable, message) }
    }

    private final class FailureBox: @unchecked Sendable {
        // @unchecked Sendable: written by the X thread before `ready.signal()`, read after `ready.wait()`.
        var message: String?
    }

    private func loop(_ clipboard: X11Clipboard) {
        while true {
            var fds = [
                pollfd(fd: clipboard.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            var timeout: Int32 = -1
            if let next = clipboard.nextDeadline { timeout = Int32(max(0, next.timeIntervalSinceNow * 1000 + 1)) }
            clipboard.processEvents()
            _ = poll(&fds, 2, timeout)
            if fds[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = read(wakeRead, &buffer, buffer.count)
            }
            let pending = lock.withLock { () -> [(X11Clipboard) -> Void] in
                defer { jobs.removeAll() }
                return jobs
            }
            for job in pending { job(clipboard) }
            clipboard.processEvents()
            clipboard.processTimeouts()
        }
    }

    private final class ResultBox<T>: @unchecked Sendable {
        // @unchecked Sendable: written on the X thread before `done.signal()`, read after `done.wait()`.
        var value: T?
    }

    /// Runs `body` on the X thread and waits for its result.
    func perform<T>(_ body: @escaping (X11Clipboard) -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        lock.withLock {
            jobs.append { clipboard in
                box.value = body(clipboard)
                done.signal()
            }
        }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        done.wait()
        return box.value!
    }

    private func noteChange(_ serverTime: Int) {
        let (count, continuations) = lock.withLock { () -> (Int, [AsyncStream<Int>.Continuation]) in
            changeCount = max(changeCount + 1, serverTime)
            return (changeCount, Array(watchers.values))
        }
        for continuation in continuations { continuation.yield(count) }
    }

    /// Waits (up to `timeout`) until the change count exceeds `previous`, as it does once the X server reports
    /// the ownership change a write just made.
    func waitForChange(after previous: Int, timeout: TimeInterval = 1) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = currentChangeCount
            if current > previous { return current }
            usleep(2000)
        }
        return currentChangeCount
    }

    /// Increases on every change of the CLIPBOARD owner. It is the X server time of the latest change, so every
    /// process on the display sees the same number.
    var currentChangeCount: Int { lock.withLock { changeCount } }

    func changes() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = lock.withLock { () -> Int in
            nextWatcher += 1
            watchers[nextWatcher] = continuation
            return nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { _ = self?.watchers.removeValue(forKey: id) }
        }
        return stream
    }
}
