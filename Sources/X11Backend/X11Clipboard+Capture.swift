import CX11
import Foundation
import ClipboardBackend
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

    func startCapture(
        _ selection: Selection, owner: Window, time: Time, isRequest: Bool = false,
        chooser: (([String]) -> FetchDecision)? = nil
    ) {
        if let previous = captures[selection] {
            abandon(previous)
            onSkip?(selection, .superseded)
        }
        let property = acquireProperty()
        var job = CaptureJob(
            selection: selection, owner: owner, time: time, property: property, observedAt: Date(),
            deadline: Date().addingTimeInterval(limits.stallTimeout))
        job.isRequest = isRequest
        job.chooser = chooser
        captures[selection] = job
        XConvertSelection(x.handle, x.atom(selection.rawValue), x.atom("TARGETS"), property, x.window, time)
    }

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
                onSkip?(selection, .ownerRefused(target))
            }
            return
        }
        guard let property = x.property(job.property, of: x.window, delete: true, limit: byteBudget(of: job)) else {
            captures[selection] = nil
            release(job.property)
            onSkip?(selection, .ownerRefused(target))
            return
        }
        if property.isOverLimit {
            // Never read into memory: an owner can build a property of any size in the X server.
            captures[selection] = nil
            abandon(job)
            onSkip?(selection, .tooLarge(target))
            return
        }
        job.deadline = Date().addingTimeInterval(limits.stallTimeout)
        job.lastProgress = Date()
        if property.type == x.atom("INCR") {
            // The INCR property holds a lower bound of the size (ICCCM 2.7.2): more than the limit is known to be
            // too much before the first chunk.
            if let announced = property.longs.first, announced > UInt(byteBudget(of: job)) {
                captures[selection] = nil
                abandon(job, isIncremental: true)
                onSkip?(selection, .tooLarge(target))
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
            onSkip?(selection, .tooLarge(job.currentTarget ?? "?"))
            return true
        }
        captures[selection]?.deadline = Date().addingTimeInterval(limits.stallTimeout)
        captures[selection]?.lastProgress = Date()
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
            if !job.isRequest { job.source = OwnerInfo.lookup(window: job.owner, display: x) }
            if !job.isRequest, let reason = admits?(
                OfferAnnouncement(selection: selection, offeredTypes: job.offered, source: job.source))
            {
                // Not to be read at all (a secret, an ignored application or type): nothing of it is fetched.
                captures[selection] = nil
                release(job.property)
                onSkip?(selection, reason)
                return
            }
            switch job.chooser?(job.offered) ?? TargetPlan.decide(job.offered) {
            case .secret:
                captures[selection] = nil
                release(job.property)
                onSkip?(selection, .secret)
                return
            case .nothing:
                captures[selection] = nil
                release(job.property)
                onSkip?(selection, .empty)
                return
            case .fetch(let targets):
                job.wanted = Array(targets.prefix(limits.maxFetchedTypes))
                job.step = .target(index: 0)
            }
        case .target(let index):
            let target = job.wanted[index]
            if target == ConcealedMarkers.passwordHint {
                if ConcealedMarkers.isSecretHint(data) {
                    captures[selection] = nil
                    release(job.property)
                    onSkip?(selection, .secret)
                    return
                }
            } else if target == "TIMESTAMP" {
                lastTimestampReply = DataAtoms.values(data, format: format).first
            } else if let type = TargetPlan.contentType(forTarget: target), format == 8 {
                // Content is bytes (format 8). Xlib hands 16- and 32-bit data out widened to C shorts and longs,
                // which are not the bytes the owner sent: such a reply is not stored.
                job.totalBytes += data.count
                if data.count <= limits.maxRepresentationBytes && job.totalBytes <= limits.maxItemBytes {
                    job.item.setData(data, forType: type)
                }
            }
            job.step = .target(index: index + 1)
        }
        captures[selection] = job
        advance(selection)
    }

    /// Requests the next wanted target, or finishes.
    private func advance(_ selection: Selection) {
        guard let job = captures[selection], case .target(let index) = job.step else { return }
        if index < job.wanted.count {
            XConvertSelection(x.handle, x.atom(selection.rawValue), x.atom(job.wanted[index]), job.property, x.window, job.time)
            x.flush()
            return
        }
        captures[selection] = nil
        release(job.property)
        if job.item.isEmpty {
            onSkip?(selection, .empty)
            return
        }
        onCapture?(CapturedOffer(
            selection: selection, item: job.item, offeredTypes: job.offered, source: job.source,
            ownerChangeTime: job.time, observedAt: job.observedAt))
    }
}
