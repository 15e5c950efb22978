import FoundationEssentials
import ClipboardBackend
import CSystemShim
import DBusWire
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// One read of an owner's offer through the GNOME Shell extension: each batch of types a `CaptureRun` asks for is
/// fetched at once, every type through `ReadType` into a pipe of its own, bounded in bytes and time. (The run asks
/// for a browser's custom-data container alone first, so a secret marker inside it ends the read before anything
/// else is fetched.)
final class ShellRead {
    let run: CaptureRun
    let owner: ShellOwner
    private let link: ShellLink
    private let poll: EventPoll
    private let limits: CaptureLimits

    /// One type in flight: its pipe's reading end, what arrived, the size the extension announced, whether the
    /// pipe ended.
    private struct Transfer {
        let type: String
        let pipe: Int32
        var data = Data()
        var size: UInt64?
        var atEnd = false
    }

    /// The types of the current batch still in flight, by their pipe.
    private var transfers: [Int32: Transfer] = [:]
    /// What each type of the batch gave (nil: nothing), in the order asked for, handed to the run when the batch ends.
    private var results: [(type: String, data: Data?)] = []
    /// Counts the batches, so that a late reply to an abandoned one is recognized.
    private var batch = 0
    /// When the batch is given up if nothing more arrives.
    private(set) var deadline: Date
    private let started: Date
    private(set) var isFinished = false

    init(run: CaptureRun, owner: ShellOwner, link: ShellLink, poll: EventPoll, limits: CaptureLimits) {
        self.run = run
        self.owner = owner
        self.link = link
        self.poll = poll
        self.limits = limits
        started = Date()
        deadline = started.addingTimeInterval(limits.stallTimeout)
    }

    /// Fetches `types`, the run's first batch (ends at once when there is none).
    func start(_ types: [String]) {
        begin(types)
    }

    /// Reads what every pipe in flight holds.
    func readPipes() {
        for pipe in Array(transfers.keys) { readPipe(pipe) }
    }

    /// Gives up the types the extension made no progress on, or the whole run past the slow-owner cap.
    func processTimeouts(now: Date) {
        guard !isFinished, !transfers.isEmpty else { return }
        if now.timeIntervalSince(started) >= limits.slowOwnerCap, let type = transfers.values.first?.type {
            stop()
            run.fail(.tookTooLong(type))
            return
        }
        guard now >= deadline else { return }
        let stalled = transfers.values.map(\.type)
        closeAll()
        handOver()
        for type in stalled where run.hasEnded || !run.stalled(type) {
            finish()
            return
        }
        endBatch()
    }

    /// Stops reading (a newer read, the owner gone): the run is not told.
    func stop() {
        closeAll()
        isFinished = true
    }

    // MARK: -

    private func begin(_ types: [String]) {
        var types = types
        while !isFinished {
            if run.hasEnded {
                finish()
                return
            }
            let wanted = types.filter { run.wants($0) }
            if wanted.isEmpty {
                types = run.batchDone()
                if run.hasEnded || types.isEmpty {
                    finish()
                    return
                }
                continue
            }
            batch += 1
            results = wanted.map { ($0, nil) }
            deadline = Date().addingTimeInterval(limits.stallTimeout)
            for type in wanted { ask(type) }
            if transfers.isEmpty {
                // Not one call could be made: nothing of this batch comes.
                types = endBatchTypes()
                continue
            }
            return
        }
    }

    /// Asks for `type` into a new pipe; leaves no transfer when the call cannot be made.
    private func ask(_ type: String) {
        var ends: [Int32] = [0, 0]
        guard pb_pipe_cloexec_nonblock(&ends) == 0 else { return }
        let token = batch
        let pipe = ends[0]
        transfers[pipe] = Transfer(type: type, pipe: pipe)
        poll.watch(pipe)
        do {
            try link.readType(
                owner.selection, serial: owner.serial, type: type, into: ends[1], maxBytes: limits.maxRepresentationBytes,
                timeout: .seconds(Int(limits.slowOwnerCap))
            ) { [weak self] result in
                self?.replied(result, pipe: pipe, token: token)
            }
        } catch {
            close(ends[1])
            drop(pipe)
            return
        }
        // The call carries a duplicate of the writing end: ours goes, so that the pipe ends when the extension's does.
        close(ends[1])
    }

    private func replied(_ result: Result<UInt64, DBusError>, pipe: Int32, token: Int) {
        guard token == batch, !isFinished, transfers[pipe] != nil else { return }
        switch result {
        case .success(let size):
            transfers[pipe]?.size = size
            if transfers[pipe]?.atEnd == true { complete(pipe) } else { readPipe(pipe) }
        case .failure(let error) where error.name?.hasSuffix(".Stale") == true:
            // The owner changed: the pipeline hears of it and reads the new one.
            stop()
            run.fail(.superseded)
        case .failure:
            // Not offered after all, too large, or the owner failed: the batch goes on without this type, as when
            // an X11 owner refuses one.
            drop(pipe)
            if transfers.isEmpty { endBatch() }
        }
    }

    private func readPipe(_ pipe: Int32) {
        guard var transfer = transfers[pipe], !transfer.atEnd else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(pipe, &buffer, buffer.count)
            if count > 0 {
                transfer.data.append(contentsOf: buffer[..<count])
                deadline = Date().addingTimeInterval(limits.stallTimeout)
                if transfer.data.count > limits.maxRepresentationBytes {
                    drop(pipe)
                    if transfers.isEmpty { endBatch() }
                    return
                }
            } else if count == 0 {
                transfer.atEnd = true
                transfers[pipe] = transfer
                // The pipe is done; the reply with the size decides, if it has not come yet.
                poll.forget(pipe)
                if transfer.size != nil { complete(pipe) }
                return
            } else if errno == EINTR {
                continue
            } else {
                transfers[pipe] = transfer
                if errno != EAGAIN {
                    drop(pipe)
                    if transfers.isEmpty { endBatch() }
                }
                return
            }
        }
    }

    /// The whole of a type arrived (or not all its announced bytes: then nothing of it is kept).
    private func complete(_ pipe: Int32) {
        guard let transfer = transfers[pipe] else { return }
        drop(pipe)
        if UInt64(transfer.data.count) == transfer.size, let index = results.firstIndex(where: { $0.type == transfer.type }) {
            results[index].data = transfer.data
        }
        if transfers.isEmpty { endBatch() }
    }

    /// Hands the batch's types to the run in the order asked for, and starts the next batch.
    private func endBatch() {
        let next = endBatchTypes()
        if run.hasEnded || next.isEmpty {
            finish()
        } else {
            begin(next)
        }
    }

    private func endBatchTypes() -> [String] {
        handOver()
        guard !run.hasEnded else { return [] }
        return run.batchDone()
    }

    /// Hands what arrived of the batch to the run, in the order asked for.
    private func handOver() {
        for (type, data) in results {
            if let data, !run.hasEnded { run.received(type, data) }
        }
        results = []
    }

    private func drop(_ pipe: Int32) {
        guard transfers.removeValue(forKey: pipe) != nil else { return }
        poll.forget(pipe)
        close(pipe)
    }

    private func closeAll() {
        for pipe in Array(transfers.keys) { drop(pipe) }
    }

    private func finish() {
        guard !isFinished else { return }
        closeAll()
        isFinished = true
        run.deliver()
    }
}
