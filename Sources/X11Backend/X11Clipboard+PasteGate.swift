public import ClipboardBackend
import CX11
import FoundationEssentials

/// Readers' requests waiting for the paste gate's answer: one question per reader and item, however many targets it
/// asks for meanwhile.
struct HeldPaste {
    let ticket: Int
    let reader: ReaderKey
    let selection: Selection
    /// When we took the selection: an answer only applies to what the reader asked for.
    let ownedTime: Time
    var requests: [(event: XSelectionRequestEvent, target: String)]
}

/// A recent answer, reused for the other targets of the same paste.
struct PasteAnswer {
    let reader: ReaderKey
    let selection: Selection
    let ownedTime: Time
    let allow: Bool
    let until: Date
}

/// Who reads: the requestor's process when the X server knows it, else its window.
enum ReaderKey: Equatable {
    case process(Int)
    case window(Window)
}

extension X11Clipboard {
    /// How long one answer covers further requests of the same reader for the same item (a reader that asks for
    /// TARGETS, then text/html, then UTF8_STRING is asked about once).
    static let pasteAnswerReuse: TimeInterval = 3

    /// The X server names the requestor's process (X-Resource), and `/proc` its name.
    public var pasteGating: PasteGating { .namedReaders }

    /// Without a gate (the daemon stopping), held readers are refused rather than left waiting for good.
    public func setPasteGate(_ gate: (any PasteGate)?) {
        pasteGate = gate
        if gate == nil {
            for held in heldPastes { resolvePaste(ticket: held.ticket, allow: false) }
        }
    }

    public func resolvePaste(ticket: Int, allow: Bool) {
        guard let index = heldPastes.firstIndex(where: { $0.ticket == ticket }) else { return }
        let held = heldPastes.remove(at: index)
        let stillOurs = owned[held.selection]?.time == held.ownedTime
        recentPasteAnswers.append(
            PasteAnswer(
                reader: held.reader, selection: held.selection, ownedTime: held.ownedTime, allow: allow,
                until: Date().addingTimeInterval(Self.pasteAnswerReuse)))
        for (event, target) in held.requests {
            if allow && stillOurs {
                serve(event, selection: held.selection, target: target)
            } else {
                notify(event, property: 0)
            }
        }
        _ = pb_x_take_last_error()  // a reader that gave up and exited meanwhile is not an error
        x.flush()
    }

    /// Asks the gate about a data request, unless the same reader's paste of the same item is already being
    /// asked about (the request joins it) or was answered a moment ago.
    func gate(_ event: XSelectionRequestEvent, selection: Selection, target: String, ownedTime: Time) -> PasteDecision {
        let now = Date()
        recentPasteAnswers.removeAll { $0.until <= now }
        let pid = x.clientPID(of: event.requestor)
        let reader = pid.map(ReaderKey.process) ?? .window(event.requestor)
        if let answer = recentPasteAnswers.last(where: {
            $0.reader == reader && $0.selection == selection && $0.ownedTime == ownedTime
        }) {
            return answer.allow ? .serve : .refuse
        }
        if let index = heldPastes.firstIndex(where: {
            $0.reader == reader && $0.selection == selection && $0.ownedTime == ownedTime
        }) {
            heldPastes[index].requests.append((event, target))
            return .hold
        }
        guard let pasteGate else { return .serve }
        lastPasteTicket += 1
        let application = OwnerInfo.lookup(window: event.requestor, display: x, serverPID: pid)
        let request = PasteRequest(ticket: lastPasteTicket, selection: selection, type: target, reader: application)
        let decision = pasteGate.pasteRequested(request)
        switch decision {
        case .hold:
            heldPastes.append(
                HeldPaste(
                    ticket: request.ticket, reader: reader, selection: selection, ownedTime: ownedTime,
                    requests: [(event, target)]))
        case .serve, .refuse:
            recentPasteAnswers.append(
                PasteAnswer(
                    reader: reader, selection: selection, ownedTime: ownedTime, allow: decision == .serve,
                    until: now.addingTimeInterval(Self.pasteAnswerReuse)))
        }
        return decision
    }
}
