import CWayland
import ClipboardBackend
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
            if let job = captures[selection] {
                // The source left while its types are read: what it already wrote still arrives, and the read
                // ends there; then the selection is taken over.
                job.sourceWentAway = true
                return
            }
            if isWatched {
                sink?.ownerChanged(selection, time: clock)
                sink?.ownerGone(selection, clientExited: false)
            }
            return
        }
        if owned[selection] != nil {
            // Our own source, as every data-control client sees it. (A newer copy by another client cancels our
            // source first: the compositor sends `cancelled` before the selection that replaced it.)
            destroyOffer(offer)
            if isWatched { sink?.ownerChanged(selection, time: clock) }
            return
        }
        current[selection] = offer
        guard isWatched else { return }
        sink?.ownerChanged(selection, time: clock)
        if capturesOnChange { startCapture(selection, offer: offer, isRequest: false) }
    }

    func destroyOffer(_ offer: OpaquePointer) {
        guard offers.removeValue(forKey: offer) != nil else { return }
        roles[offer] = nil
        pb_dc_destroy(offer, UInt32(PB_DC_OFFER_DESTROY))
    }

    // MARK: - Reading an offer

    /// Reads what `offer` holds: every type worth keeping (or what `chooser` picks), all at once, each through
    /// a pipe of its own.
    func startCapture(
        _ selection: Selection, offer: OpaquePointer, isRequest: Bool, chooser: (([String]) -> FetchDecision)? = nil
    ) {
        if let previous = captures.removeValue(forKey: selection) {
            if previous.isRequest || isRequest {
                closePipes(of: previous)
                report(previous, .failed(.superseded))
            } else {
                previous.wasReplaced = true
                replaced.append(previous)
            }
        }
        let offered = offers[offer] ?? []
        let job = CaptureJob(selection: selection, offered: offered, time: clock, isRequest: isRequest, now: Date())
        nextSequence += 1
        job.sequence = nextSequence
        if offered.count > limits.maxOfferedTypes {
            return report(job, .failed(.tooLarge("the list of offered types")))
        }
        let announcement = OfferAnnouncement(selection: selection, offeredTypes: offered, source: SourceApplication())
        if !isRequest, let reason = sink?.admit(announcement) {
            return report(job, .failed(reason))
        }
        let sink = isRequest ? nil : self.sink
        let decision = chooser?(offered) ?? TargetPlan.decide(offered) { sink?.drops($0, of: announcement) ?? false }
        switch decision {
        case .secret:
            return report(job, .failed(.secret))
        case .nothing:
            let wasDropped = chooser == nil && TargetPlan.decide(offered) != .nothing
            let reason = CaptureSkip.ignored("every type it offered is dropped by a drop-type rule")
            return report(job, .failed(wasDropped ? reason : .empty))
        case .fetch(let types):
            job.preference = Array(types.prefix(limits.maxFetchedTypes))
        }
        // A browser's custom-data container first, alone: a web page marks its copy secret only inside it, and
        // then nothing else of the offer is read.
        let containers = job.preference.filter(ConcealedMarkers.isCustomDataContainer)
        job.offer = offer
        if !containers.isEmpty && !isRequest {
            job.deferred = job.preference.filter { !ConcealedMarkers.isCustomDataContainer($0) }
        }
        captures[selection] = job
        receive(job.deferred.isEmpty ? job.preference : containers, for: job, from: offer)
    }

    /// Asks the source of `offer` for `types`, each through a pipe of its own.
    private func receive(_ types: [String], for job: CaptureJob, from offer: OpaquePointer) {
        for type in types {
            let pipe: (read: Int32, write: Int32)
            do {
                pipe = try Descriptors.pipe()
            } catch {
                endCapture(job)
                return report(job, .failed(.ownerRefused(type)))
            }
            pb_dc_offer_receive(offer, type, pipe.write)
            // libwayland keeps a duplicate of the descriptor until the request is sent.
            close(pipe.write)
            job.pending[pipe.read] = CaptureJob.Incoming(type: type)
            captureFDs[pipe.read] = job
            descriptors.watch(pipe.read)
        }
        flush()
    }

    /// The containers of `job` have arrived: a secret marker in one ends the capture; otherwise the rest is read
    /// (when its offer still lives: a newer copy or a source that left ends the read there).
    private func containersArrived(_ job: CaptureJob) {
        let types = job.deferred
        job.deferred = []
        for (type, data) in job.received where ConcealedMarkers.isCustomDataContainer(type) {
            if ConcealedMarkers.isConcealed(customData: data, container: type) {
                endCapture(job)
                return report(job, .failed(.secret))
            }
        }
        // The offer object is destroyed once the selection changes (its address may then be reused): only the
        // current, unreplaced offer is asked again.
        guard let offer = job.offer, !job.wasReplaced, !job.sourceWentAway, current[job.selection] == offer else {
            endCapture(job)
            return report(job, .failed(job.wasReplaced ? .superseded : .ownerRefused(types.first ?? "?")))
        }
        receive(types, for: job, from: offer)
    }

    /// Reads what arrived on one of a capture's pipes.
    func readPipe(_ fd: Int32, for job: CaptureJob, hungUp: Bool) {
        guard job.pending[fd] != nil else {
            descriptors.forget(fd)
            captureFDs[fd] = nil
            close(fd)
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
                    return report(job, .failed(.tooLarge(type)))
                }
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
            // End of data (or a broken pipe): this type is complete.
            let incoming = job.pending.removeValue(forKey: fd)!
            descriptors.forget(fd)
            captureFDs[fd] = nil
            close(fd)
            job.received[incoming.type] = incoming.data
            job.lastProgress = Date()
            if job.pending.isEmpty { job.deferred.isEmpty ? finish(job) : containersArrived(job) }
            return
        }
    }

    /// Every type has arrived: the item, in the plan's order of preference.
    private func finish(_ job: CaptureJob) {
        endCapture(job)
        let item = TargetPlan.item(from: job.preference.compactMap { type in job.received[type].map { (type, $0) } })
        if item.isEmpty {
            report(job, .failed(.empty))
        } else {
            report(job, .item(item, offered: job.offered))
        }
    }

    /// Stops `job` (already reported or about to be).
    func endCapture(_ job: CaptureJob) {
        if captures[job.selection] === job { captures[job.selection] = nil }
        replaced.removeAll { $0 === job }
        closePipes(of: job)
    }

    func closePipes(of job: CaptureJob) {
        for fd in job.pending.keys {
            descriptors.forget(fd)
            captureFDs[fd] = nil
            close(fd)
        }
        job.pending = [:]
    }

    /// Ends `job`: to the client that asked, or to the sink. A read a newer copy replaced counts only with an item,
    /// and only while no newer read of its selection has ended.
    func report(_ job: CaptureJob, _ outcome: ReadResult) {
        var outcome = outcome
        let isReplaced = job.wasReplaced
        if isReplaced {
            if case .item = outcome, (newestReported[job.selection] ?? 0) < job.sequence {
                // Recorded: it is older than the current copy, which is read and reported after it.
            } else {
                outcome = .failed(.superseded)
            }
        }
        // Any end of a current read counts (a secret too: an older item must not come back after it), and an
        // item of a replaced one.
        var counts = !job.isRequest && !isReplaced
        if case .item = outcome, !job.isRequest { counts = true }
        if counts { newestReported[job.selection] = max(newestReported[job.selection] ?? 0, job.sequence) }
        if job.isRequest {
            requestResult?(job.selection, outcome)
        } else {
            switch outcome {
            case .item(let item, let offered):
                sink?.captured(CapturedOffer(
                    selection: job.selection, item: item, offeredTypes: offered, source: SourceApplication(),
                    ownerChangeTime: job.time, observedAt: job.observedAt))
            case .failed(let reason):
                sink?.skipped(job.selection, reason)
            case .empty:
                sink?.skipped(job.selection, .empty)
            }
        }
        if !isReplaced && job.sourceWentAway && owned[job.selection] == nil && current[job.selection] == nil
            && watched.contains(job.selection)
        {
            sink?.ownerChanged(job.selection, time: clock)
            sink?.ownerGone(job.selection, clientExited: false)
        }
    }
}
