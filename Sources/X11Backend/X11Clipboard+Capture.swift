import CX11
import FoundationEssentials
import ClipboardBackend
import PasteboardModel

extension X11Clipboard {
    /// How a capture ended.
    enum CaptureOutcome {
        case captured(CapturedOffer)
        case skipped(CaptureSkip)
    }

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

    func startCapture(
        _ selection: Selection, owner: Window, time: Time, isRequest: Bool = false, isReread: Bool = false,
        chooser: (([String]) -> FetchDecision)? = nil
    ) {
        if let previous = captures[selection] {
            captures[selection] = nil
            abandon(previous)
            report(previous, .skipped(.superseded))
        }
        let property = acquireProperty()
        let now = Date()
        var job = CaptureJob(
            selection: selection, owner: owner, time: time, property: property, observedAt: now,
            deadline: now.addingTimeInterval(limits.stallTimeout))
        job.isRequest = isRequest
        job.isReread = isReread
        job.chooser = chooser
        job.ownerPID = x.clientPID(of: owner)
        sampleOwner(&job, now: now)
        captures[selection] = job
        XConvertSelection(x.handle, x.atom(selection.rawValue), x.atom("TARGETS"), property, x.window, time)
    }

    /// Ends `job` (already removed from `captures`): tells the sink, or for a re-read only what is new.
    func report(_ job: CaptureJob, _ outcome: CaptureOutcome) {
        if job.isReread {
            rereadFinished(job, outcome)
        } else {
            switch outcome {
            case .captured(let offer):
                onCapture?(offer)
                if !job.isRequest { scheduleRereads(after: offer, owner: job.owner) }
            case .skipped(let reason):
                onSkip?(job.selection, reason)
            }
        }
        if job.selection == .clipboard { answerPendingSaves() }
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
                report(job, .skipped(.ownerRefused(target)))
            }
            return
        }
        guard let property = x.property(job.property, of: x.window, delete: true, limit: byteBudget(of: job)) else {
            captures[selection] = nil
            release(job.property)
            report(job, .skipped(.ownerRefused(target)))
            return
        }
        if property.isOverLimit {
            // Never read into memory: an owner can build a property of any size in the X server.
            captures[selection] = nil
            abandon(job)
            report(job, .skipped(.tooLarge(target)))
            return
        }
        madeProgress(&job)
        if property.type == x.atom("INCR") {
            // The INCR property holds a lower bound of the size (ICCCM 2.7.2): more than the limit is known to be
            // too much before the first chunk.
            if let announced = property.longs.first, announced > UInt(byteBudget(of: job)) {
                captures[selection] = nil
                abandon(job, isIncremental: true)
                report(job, .skipped(.tooLarge(target)))
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
            report(job, .skipped(.tooLarge(job.currentTarget ?? "?")))
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
            let atoms = DataAtoms.values(data, format: format)
            job.offered = atoms.compactMap { x.name(of: $0) }
            if !job.isRequest { job.source = OwnerInfo.lookup(window: job.owner, display: x, serverPID: job.ownerPID) }
            let announcement = OfferAnnouncement(selection: selection, offeredTypes: job.offered, source: job.source)
            if !job.isRequest, let reason = admits?(announcement) {
                // Not to be read at all (a secret, an ignored application or type): nothing of it is fetched.
                captures[selection] = nil
                release(job.property)
                report(job, .skipped(reason))
                return
            }
            // A user's drop-type rules shape what the watcher records, not what a client reads.
            let rule = job.isRequest ? nil : drops
            let dropped: (String) -> Bool = { rule?($0, announcement) ?? false }
            switch job.chooser?(job.offered) ?? TargetPlan.decide(job.offered, drops: dropped) {
            case .secret:
                captures[selection] = nil
                release(job.property)
                report(job, .skipped(.secret))
                return
            case .nothing:
                captures[selection] = nil
                release(job.property)
                let wasDropped = job.chooser == nil && TargetPlan.decide(job.offered) != .nothing
                let reason = CaptureSkip.ignored("every type it offered is dropped by a drop-type rule")
                report(job, .skipped(wasDropped ? reason : .empty))
                return
            case .fetch(let targets):
                job.preference = Array(targets.prefix(limits.maxFetchedTypes))
                // A browser's custom-data container first: a secret marker in it ends the capture before anything
                // else is read.
                let isContainer = ConcealedMarkers.isCustomDataContainer
                job.wanted = job.preference.filter(isContainer) + job.preference.filter { !isContainer($0) }
                job.step = .target(index: 0)
            }
        case .target(let index):
            let target = job.wanted[index]
            if ConcealedMarkers.isCustomDataContainer(target)
                && ConcealedMarkers.isConcealed(customData: data, container: target)
            {
                // A web page's own types carry a secret marker: nothing more is read, nothing is kept.
                captures[selection] = nil
                release(job.property)
                report(job, .skipped(.secret))
                return
            }
            if target == "TIMESTAMP" {
                lastTimestampReply = DataAtoms.values(data, format: format).first
            } else if TargetPlan.contentType(forTarget: target) != nil, format == 8, !data.isEmpty {
                // Content is bytes (format 8). Xlib hands 16- and 32-bit data out widened to C shorts and longs,
                // which are not the bytes the owner sent: such a reply is not stored. Nor is an empty one: GTK
                // answers a conversion it failed (an ICO of a picture larger than 256 pixels) with no bytes.
                job.totalBytes += data.count
                if data.count <= limits.maxRepresentationBytes && job.totalBytes <= limits.maxItemBytes {
                    job.replies.append((target, data))
                }
            }
            job.step = .target(index: index + 1)
        }
        captures[selection] = job
        advance(selection)
    }

    /// Requests the next wanted target, or finishes.
    private func advance(_ selection: Selection) {
        guard var job = captures[selection], case .target(var index) = job.step else { return }
        // An alias of a large text is not read: it would not be kept apart.
        while index < job.wanted.count && !TargetPlan.reads(job.wanted[index], after: job.replies) { index += 1 }
        job.step = .target(index: index)
        if index < job.wanted.count {
            sampleOwner(&job, now: Date())
            captures[selection] = job
            XConvertSelection(x.handle, x.atom(selection.rawValue), x.atom(job.wanted[index]), job.property, x.window, job.time)
            x.flush()
            return
        }
        captures[selection] = nil
        release(job.property)
        // The representations in the plan's order of preference, not the order they were read in.
        let rank = Dictionary(job.preference.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
        let item = TargetPlan.item(from: job.replies.sorted { (rank[$0.target] ?? .max) < (rank[$1.target] ?? .max) })
        if item.isEmpty {
            report(job, .skipped(.empty))
            return
        }
        report(job, .captured(CapturedOffer(
            selection: selection, item: item, offeredTypes: job.offered, source: job.source,
            ownerChangeTime: job.time, observedAt: job.isReread ? Date() : job.observedAt)))
    }
}
