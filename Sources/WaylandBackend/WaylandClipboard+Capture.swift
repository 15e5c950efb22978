import CWayland
public import ClipboardBackend
import FoundationEssentials
import PasteboardModel
#if canImport(Glibc)
import Glibc
#endif

extension WaylandClipboard {
    // MARK: - Selection changes

    /// The compositor says `selection` now holds `offer` (nil: nothing, its source went away or it was cleared).
    func selectionChanged(_ selection: Selection, offer: OpaquePointer?) {
        // A capture of the previous offer keeps its pipes: the source writes into them whatever becomes of the
        // offer object.
        if let previous = current[selection], previous != offer { destroyOffer(previous) }
        current[selection] = nil
        clock += 1
        let isWatched = watched.contains(selection)
        guard let offer else {
            if owned[selection] != nil { return }  // from before we took the selection
            // A read of the source that left goes on: what it already wrote still arrives.
            captures[selection]?.sourceWentAway = true
            if isWatched {
                observer?.ownerChanged(OwnerChange(selection, owner: .nobody, time: clock))
                observer?.ownerGone(selection, clientExited: false)
            }
            return
        }
        if owned[selection] != nil {
            // Our own source, as every data-control client sees it. (A newer copy by another client cancels our
            // source first: the compositor sends `cancelled` before the selection that replaced it.)
            destroyOffer(offer)
            if isWatched { observer?.ownerChanged(OwnerChange(selection, owner: .thisProcess, time: clock)) }
            return
        }
        current[selection] = offer
        if isWatched { observer?.ownerChanged(OwnerChange(selection, owner: .application, time: clock)) }
    }

    func destroyOffer(_ offer: OpaquePointer) {
        guard offers.removeValue(forKey: offer) != nil else { return }
        roles[offer] = nil
        pb_dc_destroy(offer, UInt32(PB_DC_OFFER_DESTROY))
    }

    // MARK: - Reading an offer

    /// Starts reading the offer `selection` holds into `run`: the types it asks for, all at once, each through a
    /// pipe of its own.
    public func startReading(_ selection: Selection, into run: CaptureRun) -> ReadStart {
        if run.isRequest {
            guard isConnected else {
                run.fail(.ownerRefused("the Wayland connection"))
                return .reading
            }
            // The latest state: events the compositor sent before now.
            roundtrip()
        }
        if let owned = owned[selection] { return .ours(owned.item, offered: owned.order) }
        guard let offer = current[selection] else { return .empty }
        if let previous = captures.removeValue(forKey: selection) {
            if previous.run.isRequest || run.isRequest {
                closePipes(of: previous)
                previous.run.fail(.superseded)
            } else {
                // Its source may still write what was asked for (wl-copy does, once asked): it goes on.
                previous.wasReplaced = true
                replaced.append(previous)
            }
        }
        run.ownerTime = clock
        let job = CaptureJob(run: run, offer: offer, now: Date())
        run.abandon = { [weak self, weak job] in if let self, let job { endCapture(job) } }
        let first = run.listed(offers[offer] ?? [], source: SourceApplication(), limits: limits)
        if run.hasEnded {
            run.deliver()
            return .reading
        }
        captures[selection] = job
        receive(first, for: job)
        return .reading
    }

    /// Asks the source of `job`'s offer for `types`, each through a pipe of its own.
    private func receive(_ types: [String], for job: CaptureJob) {
        for type in types {
            let pipe: (read: Int32, write: Int32)
            do {
                pipe = try Descriptors.pipe()
            } catch {
                endCapture(job)
                return job.run.fail(.ownerRefused(type))
            }
            pb_dc_offer_receive(job.offer, type, pipe.write)
            // libwayland keeps a duplicate of the descriptor until the request is sent.
            close(pipe.write)
            job.pending[pipe.read] = CaptureJob.Incoming(type: type)
            captureFDs[pipe.read] = job
            descriptors.watch(pipe.read)
        }
        flush()
    }

    /// Every type asked for has arrived or been given up: the run's next types are asked for (when its offer still
    /// lives: a newer copy or a source that left ends the read there), or the run has ended.
    private func batchDone(_ job: CaptureJob) {
        let next = job.run.batchDone()
        if job.run.hasEnded {
            endCapture(job)
            return job.run.deliver()
        }
        // The offer object is destroyed once the selection changes (its address may then be reused): only the
        // current, unreplaced offer is asked again.
        guard !job.wasReplaced, !job.sourceWentAway, current[job.selection] == job.offer else {
            endCapture(job)
            return job.run.fail(job.wasReplaced ? .superseded : .ownerRefused(next.first ?? "?"))
        }
        receive(next, for: job)
    }

    /// Reads what arrived on one of a capture's pipes.
    func readPipe(_ fd: Int32, for job: CaptureJob, hungUp: Bool) {
        guard job.pending[fd] != nil else {
            forgetPipe(fd)
            return
        }
        var buffer = [UInt8](repeating: 0, count: 65536)
        // At most 1 MiB a turn: other pipes and the compositor get their share.
        for _ in 0..<16 {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count > 0 {
                job.lastProgress = Date()
                job.totalBytes += count
                job.pending[fd]!.data.append(contentsOf: buffer[0..<count])
                // Never kept whole in memory beyond the limits: a source may write without end.
                if job.pending[fd]!.data.count > limits.maxRepresentationBytes || job.totalBytes > limits.maxItemBytes {
                    let type = job.pending[fd]!.type
                    endCapture(job)
                    return job.run.fail(.tooLarge(type))
                }
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
            // End of data (or a broken pipe): this type is complete.
            let incoming = job.pending.removeValue(forKey: fd)!
            forgetPipe(fd)
            job.lastProgress = Date()
            job.run.received(incoming.type, incoming.data)
            if job.run.hasEnded {
                endCapture(job)
                return job.run.deliver()
            }
            if job.pending.isEmpty { batchDone(job) }
            return
        }
    }

    /// The source wrote nothing for `stallTimeout`: the run decides, type by type, whether the read goes on without
    /// the types still pending (KWin's clients never answer a type they refuse) or ends.
    func stalled(_ job: CaptureJob) {
        for (fd, incoming) in job.pending.sorted(by: { $0.value.type < $1.value.type }) {
            job.pending[fd] = nil
            forgetPipe(fd)
            if !job.run.stalled(incoming.type) {
                endCapture(job)
                return job.run.deliver()
            }
        }
        job.lastProgress = Date()
        batchDone(job)
    }

    private func forgetPipe(_ fd: Int32) {
        descriptors.forget(fd)
        captureFDs[fd] = nil
        close(fd)
    }

    /// Stops `job` (its run has ended or is about to).
    func endCapture(_ job: CaptureJob) {
        if captures[job.selection] === job { captures[job.selection] = nil }
        replaced.removeAll { $0 === job }
        closePipes(of: job)
    }

    func closePipes(of job: CaptureJob) {
        for fd in job.pending.keys { forgetPipe(fd) }
        job.pending = [:]
    }
}
