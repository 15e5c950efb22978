import CSystemShim
import ClipboardBackend
import Dispatch
import DisplayBackends
import FoundationEssentials
import SystemSupport
import PasteboardControl
import PasteboardModel
#if canImport(Glibc)
import Glibc
#endif

/// Runs a display backend on a thread of its own (Xlib is not thread-safe, nor is libwayland's queue) for a
/// program that is not the daemon: it serves what the program copies for as long as the program lives, reads
/// the clipboard on request, and counts owner changes. Other threads hand it work and wait for the answer.
final class BackendThread: @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `changeCount` and `watchers` are guarded by `lock`; the backend is created
    // and used only on the thread this class starts.
    private let lock = Lock()
    private var jobs: [(any ClipboardBackend) -> Void] = []
    private var changeCount = 0
    private var watchers: [Int: AsyncStream<Int>.Continuation] = [:]
    private var nextWatcher = 0
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var isStopping = false

    /// Opens the backend for `kind` on a new thread; throws when it cannot be opened.
    init(kind: BackendKind) throws(ClipboardError) {
        var fds: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&fds) == 0 else {
            let cause = SystemError.last("pipe2")
            throw ClipboardError("Cannot create a pipe: \(cause.reason).", cause: cause)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let ready = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        let body: @Sendable () -> Void = { [self] in
            let backend: any ClipboardBackend
            do throws(ClipboardError) {
                guard let opened = try BackendFactory.open(kind) else {
                    failure.error = ClipboardError("There is no display to open.")
                    ready.signal()
                    return
                }
                backend = opened
            } catch {
                failure.error = error
                ready.signal()
                return
            }
            let counter = ChangeCounter { [weak self] time in self?.noteChange(Int(time)) }
            backend.watch([.clipboard], observer: counter)
            if let current = backend.currentOwnerTime(.clipboard) { self.noteChange(Int(current)) }
            ready.signal()
            withExtendedLifetime(counter) { self.loop(backend) }
        }
        do {
            try DetachedThread.start(name: "pasteboard-\(kind.name)", body)
        } catch {
            // `self` is whole by now, so throwing runs `deinit`, which closes the pipe.
            throw ClipboardError("Cannot start the \(kind.name) thread: \(error.reason).", cause: error)
        }
        ready.wait()
        if let error = failure.error { throw error }
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Ends the thread: it lets go of what it owns and closes the display. Later `perform` calls must not come.
    func stop() {
        lock.withLock { isStopping = true }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Counts owner changes of the clipboard.
    private final class ChangeCounter: SelectionObserver {
        let changed: (UInt) -> Void
        init(_ changed: @escaping (UInt) -> Void) { self.changed = changed }
        func ownerChanged(_ change: OwnerChange) {
            if change.selection == .clipboard { changed(change.time) }
        }
    }

    private final class FailureBox: @unchecked Sendable {
        // @unchecked Sendable: written by the backend thread before `ready.signal()`, read after `ready.wait()`.
        var error: ClipboardError?
    }

    private func loop(_ backend: any ClipboardBackend) {
        while !lock.withLock({ isStopping }) {
            var fds = [
                pollfd(fd: backend.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            var timeout: Int32 = -1
            if let next = backend.nextDeadline { timeout = Int32(max(0, min(next.timeIntervalSinceNow * 1000 + 1, 3_600_000))) }
            backend.processEvents()
            _ = poll(&fds, 2, timeout)
            if fds[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = read(wakeRead, &buffer, buffer.count)
            }
            let pending = lock.withLock { () -> [(any ClipboardBackend) -> Void] in
                defer { jobs.removeAll() }
                return jobs
            }
            for job in pending { job(backend) }
            backend.processEvents()
            backend.processTimeouts(now: Date())
        }
    }

    private final class ResultBox<T>: @unchecked Sendable {
        // @unchecked Sendable: written on the backend thread before `done.signal()`, read after `done.wait()`.
        var value: T?
    }

    /// Runs `body` on the backend's thread and waits for its result.
    func perform<T>(_ body: @escaping (any ClipboardBackend) -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        lock.withLock {
            jobs.append { backend in
                box.value = body(backend)
                done.signal()
            }
        }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        done.wait()
        // The job ran (done was signalled only after it stored its value).
        return box.value!
    }

    private func noteChange(_ serverTime: Int) {
        let (count, continuations) = lock.withLock { () -> (Int, [AsyncStream<Int>.Continuation]) in
            changeCount = max(changeCount + 1, serverTime)
            return (changeCount, Array(watchers.values))
        }
        for continuation in continuations { continuation.yield(count) }
    }

    /// Waits (up to `timeout`) until the change count exceeds `previous`, as it does once the display reports
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

    /// Increases on every change of the clipboard's owner. On X11 it is the server time of the latest change, so
    /// every process on the display sees the same number.
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
