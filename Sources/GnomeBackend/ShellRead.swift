import FoundationEssentials
import ClipboardBackend
import CSystemShim
import DBusWire
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// One read of an owner's offer through the GNOME Shell extension: the types a `CaptureRun` asks for, one at a
/// time, each through `ReadType` into a pipe of its own, bounded in bytes and time.
final class ShellRead {
    let run: CaptureRun
    let owner: ShellOwner
    private let link: ShellLink
    private let poll: EventPoll
    private let limits: CaptureLimits
    /// The types still to fetch in this batch.
    private var queue: [String]
    /// The type being read now: its pipe's reading end, what arrived, the size the extension announced.
    private var current: (type: String, pipe: Int32, data: Data, size: UInt64?, atEnd: Bool)?
    /// When the current type is given up if nothing more happens.
    private(set) var deadline: Date
    private let started: Date
    /// Counts the types asked for, so that a late reply to an abandoned one is recognized.
    private var attempt = 0
    private(set) var isFinished = false

    init(run: CaptureRun, owner: ShellOwner, link: ShellLink, poll: EventPoll, limits: CaptureLimits, first: [String]) {
        self.run = run
        self.owner = owner
        self.link = link
        self.poll = poll
        self.limits = limits
        queue = first
        started = Date()
        deadline = started.addingTimeInterval(limits.stallTimeout)
    }

    /// Starts on the first type (or ends at once when there is none).
    func start() {
        next()
    }

    /// Reads what the current pipe holds; ends the type at the end of its data.
    func readPipe() {
        guard var reading = current, !reading.atEnd else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(reading.pipe, &buffer, buffer.count)
            if count > 0 {
                reading.data.append(contentsOf: buffer[..<count])
                deadline = Date().addingTimeInterval(limits.stallTimeout)
                if reading.data.count > limits.maxRepresentationBytes {
                    current = reading
                    endType(keep: false)
                    return
                }
            } else if count == 0 {
                reading.atEnd = true
                current = reading
                if let size = reading.size {
                    endType(keep: UInt64(reading.data.count) == size)
                } else {
                    // The end came before the reply with the size: the pipe is done, the reply decides.
                    poll.forget(reading.pipe)
                }
                return
            } else if errno == EINTR {
                continue
            } else {
                current = reading
                if errno != EAGAIN { endType(keep: false) }
                return
            }
        }
    }

    /// Gives up a type the extension made no progress on, or the whole run past the slow-owner cap.
    func processTimeouts(now: Date) {
        guard !isFinished else { return }
        if now.timeIntervalSince(started) >= limits.slowOwnerCap, let type = current?.type {
            stop()
            run.fail(.tookTooLong(type))
            return
        }
        guard now >= deadline, let type = current?.type else { return }
        closeCurrent()
        if run.stalled(type) { next() } else { finish() }
    }

    /// Stops reading (a newer read, the owner gone): the run is not told.
    func stop() {
        closeCurrent()
        isFinished = true
    }

    var pipe: Int32? { current?.pipe }

    // MARK: -

    private func next() {
        while !isFinished {
            if run.hasEnded {
                finish()
                return
            }
            guard let type = queue.first else {
                queue = run.batchDone()
                if run.hasEnded || queue.isEmpty {
                    finish()
                    return
                }
                continue
            }
            queue.removeFirst()
            if !run.wants(type) { continue }
            if begin(type) { return }
        }
    }

    /// Asks for `type`; false when the call could not even be made (then the type is passed over).
    private func begin(_ type: String) -> Bool {
        var ends: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&ends) == 0 else { return false }
        attempt += 1
        let token = attempt
        current = (type, ends[0], Data(), nil, false)
        poll.watch(ends[0])
        deadline = Date().addingTimeInterval(limits.stallTimeout)
        do {
            try link.readType(
                owner.selection, serial: owner.serial, type: type, into: ends[1], maxBytes: limits.maxRepresentationBytes,
                timeout: .seconds(Int(limits.slowOwnerCap))
            ) { [weak self] result in
                self?.replied(result, token: token)
            }
        } catch {
            close(ends[1])
            closeCurrent()
            return false
        }
        // The call carries a duplicate of the writing end: ours goes, so that the pipe ends when the extension's does.
        close(ends[1])
        return true
    }

    private func replied(_ result: Result<UInt64, DBusError>, token: Int) {
        guard token == attempt, !isFinished, current != nil else { return }
        switch result {
        case .success(let size):
            current?.size = size
            if let reading = current, reading.atEnd {
                endType(keep: UInt64(reading.data.count) == size)
            } else {
                readPipe()
            }
        case .failure(let error):
            switch error.name.map({ $0.split(separator: ".").last.map(String.init) ?? $0 }) {
            case "Stale"?:
                // The owner changed: the pipeline hears of it and reads the new one.
                stop()
                run.fail(.superseded)
            case "TooLarge"?:
                endType(keep: false)
            default:
                // Not offered after all, or the owner failed: go on without this type, as when an X11 owner refuses.
                endType(keep: false)
            }
        }
    }

    /// Ends the current type, handing its bytes to the run when `keep`, and goes on.
    private func endType(keep: Bool) {
        guard let reading = current else { return }
        closeCurrent()
        if keep { run.received(reading.type, reading.data) }
        next()
    }

    private func closeCurrent() {
        guard let reading = current else { return }
        poll.forget(reading.pipe)
        close(reading.pipe)
        current = nil
    }

    private func finish() {
        guard !isFinished else { return }
        closeCurrent()
        isFinished = true
        run.deliver()
    }
}
