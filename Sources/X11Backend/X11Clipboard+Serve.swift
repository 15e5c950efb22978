import FoundationEssentials
public import PasteboardModel
public import ClipboardBackend
import CX11

extension X11Clipboard {
    // MARK: - Owning

    /// Takes `selection` with `item`; readers then get any of its representations, byte-exact.
    /// With `once`, the selection is given up after the first successful paste of data.
    @discardableResult
    public func own(_ selection: Selection, item: PasteboardItem, once: Bool = false) -> Bool {
        let served = TargetPlan.servedTargets(for: item)
        let order = served.map(\.name)
        var targets: [String: OwnedItem.Served] = [:]
        for target in served where targets[target.name] == nil {
            targets[target.name] = (item.representations[target.representation], target.conversion)
        }
        var deferred: [XEvent] = []
        let time = x.serverTime(otherEvents: &deferred)
        XSetSelectionOwner(x.handle, x.atom(selection.rawValue), x.window, time)
        let isOwner = XGetSelectionOwner(x.handle, x.atom(selection.rawValue)) == x.window
        if isOwner {
            // Owned already (another item of ours, or the same again): requests stamped with the time we took the
            // selection are still ours to answer. A reader that has not heard of this owner change yet asks with
            // it (mutter, bridging the clipboard to Wayland on GNOME: refused, the paste got nothing).
            let since = owned[selection].map { min($0.answersSince, time) } ?? time
            owned[selection] = OwnedItem(
                item: item, time: time, targets: targets, targetOrder: order, once: once, answersSince: since)
        }
        for var event in deferred { handle(&event) }
        x.flush()
        return isOwner
    }

    /// Gives up a selection we own.
    public func disown(_ selection: Selection) {
        guard owned[selection] != nil else { return }
        owned[selection] = nil
        XSetSelectionOwner(x.handle, x.atom(selection.rawValue), 0, Time(CurrentTime))
        x.flush()
    }

    /// Whether we currently own `selection`.
    public func owns(_ selection: Selection) -> Bool { owned[selection] != nil }

    /// Becomes the ICCCM clipboard manager, so applications hand over their clipboard when they exit.
    public func becomeClipboardManager() -> Bool {
        var deferred: [XEvent] = []
        let time = x.serverTime(otherEvents: &deferred)
        let manager = x.atom("CLIPBOARD_MANAGER")
        XSetSelectionOwner(x.handle, manager, x.window, time)
        for var event in deferred { handle(&event) }
        x.flush()
        return XGetSelectionOwner(x.handle, manager) == x.window
    }

    // MARK: - Answering readers

    func handleSelectionRequest(_ request: XSelectionRequestEvent) {
        let property = request.property != 0 ? request.property : request.target  // obsolete clients send None
        if request.selection == x.atom("CLIPBOARD_MANAGER") {
            let target = x.name(of: request.target)
            if target == "SAVE_TARGETS", let job = captures[.clipboard], job.run.mode == .watch {
                // The application is exiting while its clipboard is still being read: it keeps serving until it
                // gets this answer, so the answer waits for the capture to end.
                pendingSaves.append(request)
                return
            }
            // SAVE_TARGETS: we already hold every representation of the current clipboard.
            let ok = target == "SAVE_TARGETS" || target == "TARGETS"
            if ok { x.setBytes(Data(), property: property, type: x.atom("NULL"), on: request.requestor) }
            notify(request, property: ok ? property : 0)
            return
        }
        guard let selection = selection(for: request.selection), let owned = owned[selection],
            request.time == UInt(CurrentTime) || request.time >= owned.answersSince
        else {
            notify(request, property: 0)  // not ours, or asked about a time before we took over
            return
        }
        let target = x.name(of: request.target) ?? ""
        if !["TARGETS", "TIMESTAMP"].contains(target), pasteGate != nil {
            switch gate(request, selection: selection, target: target, ownedTime: owned.time) {
            case .serve: break
            case .hold: return
            case .refuse:
                notify(request, property: 0)
                return
            }
        }
        serve(request, selection: selection, target: target)
    }

    /// Answers a data request for a selection we own (the paste gate, if any, let it through).
    func serve(_ request: XSelectionRequestEvent, selection: Selection, target: String) {
        let property = request.property != 0 ? request.property : request.target
        var success: Bool
        if target == "MULTIPLE" {
            success = convertMultiple(request, selection: selection, property: property)
        } else {
            success = convert(target: target, atom: request.target, to: property, requestor: request.requestor, selection: selection)
        }
        if request.property == 0 && success && target == "MULTIPLE" { success = false }
        notify(request, property: success ? property : 0)
        if success { noteServed(selection, target: target) }
    }

    private func convertMultiple(_ request: XSelectionRequestEvent, selection: Selection, property: Atom) -> Bool {
        // The reader writes the pairs: a list longer than 4096 pairs is refused rather than read.
        guard request.property != 0,
            let pairs = x.property(property, of: request.requestor, delete: false, limit: 32768), !pairs.isOverLimit
        else { return false }
        var values = pairs.longs
        var index = 0
        while index + 1 < values.count {
            let targetAtom = values[index]
            let targetProperty = values[index + 1]
            let name = x.name(of: targetAtom) ?? ""
            if name == "MULTIPLE" || !convert(target: name, atom: targetAtom, to: targetProperty, requestor: request.requestor, selection: selection) {
                values[index] = 0  // ICCCM: a failed conversion is reported by replacing its target with None
            }
            index += 2
        }
        x.setAtoms(values, property: property, type: x.atom("ATOM_PAIR"), on: request.requestor)
        return true
    }

    /// Writes one target's reply into the requestor's property; large replies go out through INCR.
    private func convert(target: String, atom: Atom, to property: Atom, requestor: Window, selection: Selection) -> Bool {
        guard let owned = owned[selection] else { return false }
        switch target {
        case "TARGETS":
            let names = ["TARGETS", "TIMESTAMP", "MULTIPLE"] + owned.targetOrder + (ownerMarker.map { [$0] } ?? [])
            x.setAtoms(names.map { x.atom($0) }, property: property, type: x.atom("ATOM"), on: requestor)
            return true
        case "TIMESTAMP":
            x.setAtoms([owned.time], property: property, type: x.atom("INTEGER"), on: requestor)
            return true
        default:
            guard let (representation, conversion) = owned.targets[target] else { return false }
            if representation.byteCount > x.maxPropertyBytes, conversion == nil, let file = representation.fileURL {
                // A stored payload goes out of its file a chunk at a time, once it is known to be intact (checked
                // against its hash by the first reader).
                let payload: OutgoingPayload
                do {
                    try representation.verify()
                    payload = try OutgoingPayload(file: file)
                } catch {
                    return false
                }
                startIncr(payload, size: representation.byteCount, property: property, type: atom, requestor: requestor,
                    selection: selection)
                return true
            }
            guard var data = Self.bytes(of: representation) else { return false }
            // ICCCM: STRING is ISO Latin-1, COMPOUND_TEXT compound text, and a reply to TEXT says its encoding.
            var type = atom
            if let conversion {
                data = conversion.apply(to: data)
                if let reply = conversion.replyType { type = x.atom(reply) }
            }
            if data.count > x.maxPropertyBytes {
                startIncr(OutgoingPayload(data), size: data.count, property: property, type: type, requestor: requestor,
                    selection: selection)
            } else {
                x.setBytes(data, property: property, type: type, on: requestor)
            }
            return true
        }
    }

    /// Announces an INCR reply of `size` bytes; the chunks follow as the reader deletes the property.
    private func startIncr(
        _ payload: OutgoingPayload, size: Int, property: Atom, type: Atom, requestor: Window, selection: Selection
    ) {
        XSelectInput(x.handle, requestor, PropertyChangeMask)
        x.setAtoms([UInt(size)], property: property, type: x.atom("INCR"), on: requestor)
        outgoing.append(OutgoingTransfer(
            requestor: requestor, property: property, type: type, payload: payload,
            deadline: Date().addingTimeInterval(limits.stallTimeout * 4), selection: selection))
    }

    /// A representation's bytes, or nil when its file can no longer be read or fails its check (the reader is then
    /// refused).
    private static func bytes(of representation: PasteboardItem.Representation) -> Data? {
        do { return try representation.contents() } catch { return nil }
    }

    /// Answers the SAVE_TARGETS requests held back while the clipboard was being read, once it no longer is.
    func answerPendingSaves() {
        guard !pendingSaves.isEmpty, captures[.clipboard] == nil else { return }
        let requests = pendingSaves
        pendingSaves = []
        for request in requests {
            let property = request.property != 0 ? request.property : request.target
            x.setBytes(Data(), property: property, type: x.atom("NULL"), on: request.requestor)
            notify(request, property: property)
        }
        _ = pb_x_take_last_error()  // a requestor that gave up and exited meanwhile is not an error
    }

    func notify(_ request: XSelectionRequestEvent, property: Atom) {
        var event = XEvent()
        event.xselection.type = SelectionNotify
        event.xselection.display = x.handle
        event.xselection.requestor = request.requestor
        event.xselection.selection = request.selection
        event.xselection.target = request.target
        event.xselection.property = property
        event.xselection.time = request.time
        XSendEvent(x.handle, request.requestor, 0, NoEventMask, &event)
        x.flush()
    }

    private func noteServed(_ selection: Selection, target: String) {
        guard ["TARGETS", "TIMESTAMP", "MULTIPLE"].contains(target) == false else { return }
        onServed?(selection, target)
        guard var item = owned[selection] else { return }
        item.served += 1
        owned[selection] = item
        if item.once && !outgoing.contains(where: { $0.selection == selection }) { disownAfterOnce(selection) }
    }

    private func disownAfterOnce(_ selection: Selection) {
        disown(selection)
        observer?.pastedOnce(selection)
    }

    // MARK: - INCR, sending side

    func handlePropertyNotify(_ event: XPropertyEvent) {
        if handleCapturePropertyNotify(event) { return }
        guard event.state == PropertyDelete,
            let index = outgoing.firstIndex(where: { $0.requestor == event.window && $0.property == event.atom })
        else { return }
        var transfer = outgoing[index]
        let chunkSize = x.maxPropertyBytes
        let chunk = transfer.payload.next(chunkSize)
        x.setBytes(chunk, property: transfer.property, type: transfer.type, on: transfer.requestor)
        transfer.deadline = Date().addingTimeInterval(limits.stallTimeout * 4)
        if chunk.isEmpty {
            outgoing.remove(at: index)
            XSelectInput(x.handle, transfer.requestor, NoEventMask)
            if let owned = owned[transfer.selection], owned.once, owned.served > 0 { disownAfterOnce(transfer.selection) }
        } else {
            outgoing[index] = transfer
        }
        x.flush()
    }

    func handleSelectionClear(_ event: XSelectionClearEvent) {
        guard let selection = selection(for: event.selection), owned[selection] != nil else { return }
        // The clear of an ownership of ours that ended before the one we hold now (a paste-once item given up,
        // and the next item of a paste stack owned at once): we still own the selection.
        if XGetSelectionOwner(x.handle, event.selection) == x.window { return }
        owned[selection] = nil
        observer?.lostOwnership(selection)
    }
}
