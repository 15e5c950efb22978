import CX11
import Foundation
import PasteboardKit

/// One capture in progress: TARGETS, then each wanted target in turn, each possibly through INCR.
struct CaptureJob {
    enum Step {
        case targets
        case target(index: Int)
    }

    let selection: Selection
    let owner: Window
    let time: Time
    let property: Atom
    let observedAt: Date
    var step: Step = .targets
    var offered: [String] = []
    var wanted: [String] = []
    var item = PasteboardItem()
    var incoming: Data?
    var incomingType: Atom = 0
    var deadline: Date
    /// When the owner last answered; a quiet spell makes the engine check for an answer Xlib may be holding.
    var lastProgress = Date()
    var totalBytes = 0
    /// Set when a client (`pb paste`) reads instead of the watcher; it may choose the targets itself.
    var isRequest = false
    var chooser: (([String]) -> TargetPlan.Decision)?

    var currentTarget: String? {
        if case .target(let index) = step, index < wanted.count { return wanted[index] }
        return nil
    }
}

extension X11Clipboard {
    /// Gives up a capture whose owner may still answer a request in flight: its property is kept out of use for
    /// a while, so a late reply cannot land in the next capture's property.
    func abandon(_ job: CaptureJob) {
        XDeleteProperty(x.handle, x.window, job.property)
        quarantine.append((job.property, Date().addingTimeInterval(limits.stallTimeout * 2)))
    }

    func startCapture(
        _ selection: Selection, owner: Window, time: Time, isRequest: Bool = false,
        chooser: (([String]) -> TargetPlan.Decision)? = nil
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
        guard let property = x.property(job.property, of: x.window, delete: true) else {
            captures[selection] = nil
            release(job.property)
            onSkip?(selection, .ownerRefused(target))
            return
        }
        job.deadline = Date().addingTimeInterval(limits.stallTimeout)
        job.lastProgress = Date()
        if property.type == x.atom("INCR") {
            job.incoming = Data()
            job.incomingType = 0
            captures[selection] = job  // chunks follow as PropertyNotify(NewValue) on our window
            return
        }
        captures[selection] = job
        received(property.data, type: property.type, format: property.format, for: selection)
    }

    func handleCapturePropertyNotify(_ event: XPropertyEvent) -> Bool {
        guard event.window == x.window, event.state == PropertyNewValue else { return false }
        guard let selection = captures.first(where: { $0.value.property == event.atom && $0.value.incoming != nil })?.key,
            var job = captures[selection]
        else { return false }
        guard let chunk = x.property(event.atom, of: x.window, delete: true) else { return true }
        job.deadline = Date().addingTimeInterval(limits.stallTimeout)
        job.lastProgress = Date()
        if chunk.data.isEmpty {
            let data = job.incoming ?? Data()
            job.incoming = nil
            captures[selection] = job
            received(data, type: job.incomingType != 0 ? job.incomingType : chunk.type, format: 8, for: selection)
            return true
        }
        job.incoming?.append(chunk.data)
        job.incomingType = chunk.type
        if (job.incoming?.count ?? 0) > limits.maxRepresentationBytes {
            captures[selection] = nil
            release(job.property)
            onSkip?(selection, .tooLarge(job.currentTarget ?? "?"))
            return true
        }
        captures[selection] = job
        return true
    }

    /// A complete reply for the current step.
    private func received(_ data: Data, type: Atom, format: Int32, for selection: Selection) {
        guard var job = captures[selection] else { return }
        switch job.step {
        case .targets:
            let atoms = DataAtoms.values(data, format: format)
            job.offered = atoms.compactMap { x.name(of: $0) }
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
                job.wanted = targets
                job.step = .target(index: 0)
            }
        case .target(let index):
            let target = job.wanted[index]
            if target == TargetPlan.passwordHint {
                if String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "secret" {
                    captures[selection] = nil
                    release(job.property)
                    onSkip?(selection, .secret)
                    return
                }
            } else if target == "TIMESTAMP" {
                lastTimestampReply = DataAtoms.values(data, format: format).first
            } else if let type = TargetPlan.contentType(forTarget: target) {
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
        let source = OwnerInfo.lookup(window: job.owner, display: x)
        onCapture?(CapturedOffer(
            selection: selection, item: job.item, offeredTargets: job.offered,
            sourceApplication: source.application, sourcePID: source.pid,
            ownerChangeTime: job.time, observedAt: job.observedAt))
    }
}

/// Atom lists as they arrive in properties.
enum DataAtoms {
    static func values(_ data: Data, format: Int32) -> [UInt] {
        guard format == 32 else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt.self)) }
    }
}
