import CX11
import FoundationEssentials
public import ClipboardBackend
import PasteboardModel

extension X11Clipboard {
    /// Gives up a capture whose owner may still answer a request in flight: its property is kept out of use for
    /// a while, so a late reply cannot land in the next capture's property.
    ///
    /// An INCR sender (`isIncremental`) is never done with the property: it writes its next chunk whenever the
    /// property is deleted, which the next capture using it would do. Such a property is retired for good.
    func abandon(_ job: CaptureJob, isIncremental: Bool? = nil) {
        XDeleteProperty(x.handle, x.window, job.property)
        if isIncremental ?? (job.incoming != nil) { return }
        quarantine.append((job.property, Date().addingTimeInterval(limits.stallTimeout * 2)))
    }

    /// Starts reading `selection`'s owner into `run`: its TARGETS first.
    public func startReading(_ selection: Selection, into run: CaptureRun) -> ReadStart {
        var owner: Window
        var time: Time
        if run.mode == .watch, let change = announcedChanges.removeValue(forKey: selection) {
            // The change XFixes just reported: read that owner, asking with the time it took the selection.
            (owner, time) = (change.owner, change.time)
        } else {
            owner = XGetSelectionOwner(x.handle, x.atom(selection.rawValue))
            if owner == 0 { return .empty }
            if owner == x.window {
                guard let owned = owned[selection] else { return .empty }
                return .ours(owned.item, offered: ["TARGETS", "TIMESTAMP", "MULTIPLE"] + owned.targetOrder)
            }
            if run.mode == .reread {
                // The same owner, asked with the time it took the selection; another owner is not re-read.
                guard let last = lastOwners[selection], last.owner == owner else { return .empty }
                time = last.time
            } else {
                var deferred: [XEvent] = []
                time = x.serverTime(otherEvents: &deferred)
                for var event in deferred { handle(&event) }
            }
        }
        if let previous = captures.removeValue(forKey: selection) {
            // One property, one conversion at a time: a newer read ends the older one.
            abandon(previous)
            ended(previous, .superseded)
        }
        run.ownerTime = UInt(time)
        run.abandon = { [weak self, weak run] in
            guard let self, let job = captures[selection], job.run === run else { return }
            captures[selection] = nil
            abandon(job)
            if selection == .clipboard { answerPendingSaves() }
        }
        let property = acquireProperty()
        let now = Date()
        var job = CaptureJob(
            run: run, owner: owner, time: time, property: property, observedAt: now,
            deadline: now.addingTimeInterval(limits.stallTimeout))
        job.ownerPID = x.clientPID(of: owner)
        sampleOwner(&job, now: now)
        captures[selection] = job
        XConvertSelection(x.handle, x.atom(selection.rawValue), x.atom("TARGETS"), property, x.window, time)
        x.flush()
        return .reading
    }

    /// Ends `job` (already removed from `captures`, its property released or abandoned) with `reason`, or with the
    /// outcome its run decided.
    func ended(_ job: CaptureJob, _ reason: CaptureSkip? = nil) {
        if let reason { job.run.fail(reason) } else { job.run.deliver() }
        if job.selection == .clipboard { answerPendingSaves() }
    }

    /// Ends the capture of `selection` once its run has ended by its own decision.
    private func finish(_ selection: Selection) {
        guard let job = captures.removeValue(forKey: selection) else { return }
        release(job.property)
        ended(job)
    }

    // MARK: - Patience with slow owners

    /// Whether the owner of a capture that got no answer for `stallTimeout` is still worth waiting for: it runs on
    /// this machine and used processor time meanwhile (Qt and GTK encode a large image for seconds before they
    /// answer), and the capture is younger than `slowOwnerCap`. An owner that sleeps is stalled.
    func isWorking(_ job: inout CaptureJob, now: Date) -> Bool {
        guard now.timeIntervalSince(job.observedAt) < limits.slowOwnerCap, let previous = job.cpuSample else {
            return false
        }
        sampleOwner(&job, now: now)
        guard let current = job.cpuSample else { return false }
        // At least 5 % of one processor over the interval: an idle event loop's wake-ups use far less.
        return current.seconds - previous.seconds >= 0.05 * now.timeIntervalSince(previous.at)
    }

    func sampleOwner(_ job: inout CaptureJob, now: Date) {
        job.cpuSample = job.ownerPID.flatMap(OwnerProcess.cpuSeconds).map { ($0, now) }
    }

    /// The owner made no progress on the target in flight: the run decides whether the capture goes on without it
    /// (then with a fresh property, the stalled one being abandoned) or ends.
    func stalled(_ selection: Selection, now: Date) {
        guard var job = captures.removeValue(forKey: selection) else { return }
        abandon(job)
        guard let target = job.currentTarget, case .target(let index) = job.step, job.run.stalled(target) else {
            return ended(job, .timedOut(job.currentTarget ?? "TARGETS"))
        }
        job.property = acquireProperty()
        job.incoming = nil
        job.step = .target(index: index + 1)
        madeProgress(&job)
        captures[selection] = job
        advance(selection)
    }

    // MARK: - Replies

    func handleSelectionNotify(_ event: XSelectionEvent) {
        guard event.requestor == x.window, let selection = selection(for: event.selection),
            var job = captures[selection], event.property == job.property || event.property == 0
        else { return }
        // Only the answer to the request in flight counts: a late reply (or refusal) to a conversion of an
        // earlier, superseded capture names another target or time and must not be taken for this one.
        let expected = job.currentTarget ?? "TARGETS"
        guard event.target == x.atom(expected), event.time == job.time || event.time == UInt(CurrentTime) else { return }
        let target = x.name(of: event.target) ?? ""
        if event.property == 0 {
            // The owner refused this conversion: skip that target, or give up when TARGETS itself failed.
            if case .target(let index) = job.step {
                job.step = .target(index: index + 1)
                captures[selection] = job
                advance(selection)
            } else {
                captures[selection] = nil
                release(job.property)
                ended(job, .ownerRefused(target))
            }
            return
        }
        guard let property = x.property(job.property, of: x.window, delete: true, limit: byteBudget(of: job)) else {
            captures[selection] = nil
            release(job.property)
            ended(job, .ownerRefused(target))
            return
        }
        if property.isOverLimit {
            // Never read into memory: an owner can build a property of any size in the X server.
            captures[selection] = nil
            abandon(job)
            ended(job, .tooLarge(target))
            return
        }
        madeProgress(&job)
        if property.type == x.atom("INCR") {
            // The INCR property holds a lower bound of the size (ICCCM 2.7.2): more than the limit is known to be
            // too much before the first chunk.
            if let announced = property.longs.first, announced > UInt(byteBudget(of: job)) {
                captures[selection] = nil
                abandon(job, isIncremental: true)
                ended(job, .tooLarge(target))
                return
            }
            job.incoming = Data()
            job.incomingType = 0
            job.incomingFormat = 8
            captures[selection] = job  // chunks follow as PropertyNotify(NewValue) on our window
            return
        }
        captures[selection] = job
        received(property.data, type: property.type, format: property.format, for: selection)
    }

    func handleCapturePropertyNotify(_ event: XPropertyEvent) -> Bool {
        guard event.window == x.window, event.state == PropertyNewValue else { return false }
        if let index = quarantine.firstIndex(where: { $0.property == event.atom }) {
            // An abandoned owner still writes there (appending to a huge reply, say): keep the property out of use
            // until it has been quiet for a while.
            quarantine[index].until = Date().addingTimeInterval(limits.stallTimeout * 2)
            return true
        }
        guard let selection = captures.first(where: { $0.value.property == event.atom && $0.value.incoming != nil })?.key,
            let budget = captures[selection].map({ byteBudget(of: $0) - ($0.incoming?.count ?? 0) })
        else { return false }
        // The job is changed in place in `captures` from here on, never through a copy: a copy would share the
        // buffer of `incoming`, and appending to it would then copy everything received so far, for every chunk.
        guard let chunk = x.property(event.atom, of: x.window, delete: true, limit: max(0, budget)) else { return true }
        if chunk.isOverLimit, let job = captures.removeValue(forKey: selection) {
            abandon(job)
            ended(job, .tooLarge(job.currentTarget ?? "?"))
            return true
        }
        let now = Date()
        captures[selection]?.deadline = now.addingTimeInterval(limits.stallTimeout)
        captures[selection]?.lastProgress = now
        captures[selection]?.nudgeDelay = Self.nudgeInterval
        if chunk.data.isEmpty {
            guard let job = captures[selection] else { return true }
            captures[selection]?.incoming = nil
            received(
                job.incoming ?? Data(), type: job.incomingType != 0 ? job.incomingType : chunk.type,
                format: job.incomingFormat, for: selection)
            return true
        }
        captures[selection]?.incoming?.append(chunk.data)
        captures[selection]?.incomingType = chunk.type
        if chunk.format != 8 { captures[selection]?.incomingFormat = chunk.format }
        return true
    }

    /// The owner answered: it has `stallTimeout` again for the next answer.
    private func madeProgress(_ job: inout CaptureJob) {
        let now = Date()
        job.deadline = now.addingTimeInterval(limits.stallTimeout)
        job.lastProgress = now
        job.nudgeDelay = Self.nudgeInterval
    }

    /// The most bytes (as the X server stores them) the current step of `job` may read: the TARGETS list is
    /// bounded by `maxOfferedTypes` atoms of 4 bytes, a representation by `maxRepresentationBytes`.
    func byteBudget(of job: CaptureJob) -> Int {
        if case .targets = job.step { return limits.maxOfferedTypes * 4 }
        return limits.maxRepresentationBytes
    }

    /// A complete reply for the current step.
    private func received(_ data: Data, type: Atom, format: Int32, for selection: Selection) {
        guard var job = captures[selection] else { return }
        switch job.step {
        case .targets:
            let offered = DataAtoms.values(data, format: format).compactMap { x.name(of: $0) }
            let source =
                job.run.isRequest
                ? SourceApplication() : OwnerInfo.lookup(window: job.owner, display: x, serverPID: job.ownerPID)
            job.wanted = job.run.listed(offered, source: source, limits: limits)
            if job.run.hasEnded { return finish(selection) }
            job.step = .target(index: 0)
        case .target(let index):
            let target = job.wanted[index]
            if target == "TIMESTAMP" {
                lastTimestampReply = DataAtoms.values(data, format: format).first
            } else if format == 8 {
                // Content is bytes (format 8). Xlib hands 16- and 32-bit data out widened to C shorts and longs,
                // which are not the bytes the owner sent: such a reply is not content.
                job.run.received(target, data)
                if job.run.hasEnded { return finish(selection) }
            }
            job.step = .target(index: index + 1)
        }
        captures[selection] = job
        advance(selection)
    }

    /// Requests the next target the run wants, or asks it for more, or finishes.
    private func advance(_ selection: Selection) {
        guard var job = captures[selection], case .target(var index) = job.step else { return }
        while true {
            while index < job.wanted.count && !job.run.wants(job.wanted[index]) { index += 1 }
            if index < job.wanted.count || job.run.hasEnded { break }
            job.wanted = job.run.batchDone()
            index = 0
            if job.wanted.isEmpty { break }
        }
        if job.run.hasEnded { return finish(selection) }
        job.step = .target(index: index)
        sampleOwner(&job, now: Date())
        captures[selection] = job
        XConvertSelection(x.handle, x.atom(selection.rawValue), x.atom(job.wanted[index]), job.property, x.window, job.time)
        x.flush()
    }
}
