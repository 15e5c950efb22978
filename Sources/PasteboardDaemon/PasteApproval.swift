public import ClipboardBackend
public import FoundationEssentials
public import PasteboardControl
public import PasteboardHistory

/// "Allow Paste": the daemon's paste gate. A paste of an item that asks is held while the app asks the user (a
/// `paste-requested` event to approvers); Allow serves it, Don't Allow, no answer before the timeout, or no app
/// running refuse it. Every paste of a history item the daemon serves goes into that item's paste log.
///
/// Single-threaded: every call comes from the daemon's loop. Nothing here waits: a held reader waits, the loop
/// goes on serving everyone else.
public final class PasteApproval: PasteGate {
    /// A question the approvers have not answered yet.
    struct Question {
        let request: PasteRequest
        let itemID: Int64
        let deadline: Date
    }

    private let store: HistoryStore
    private let backend: any ClipboardBackend
    private let timeout: TimeInterval
    private let log: (String) -> Void
    private let broadcast: (ControlEvent) -> Void
    /// The history item a selection this process owns holds, if any.
    private let itemID: (Selection) -> Int64?
    /// How many connections answer questions now.
    private let approverCount: () -> Int
    private(set) var questions: [Int: Question] = [:]

    public init(
        store: HistoryStore, backend: any ClipboardBackend, timeout: TimeInterval, log: @escaping (String) -> Void,
        broadcast: @escaping (ControlEvent) -> Void, itemID: @escaping (Selection) -> Int64?,
        approverCount: @escaping () -> Int
    ) {
        self.store = store
        self.backend = backend
        self.timeout = timeout
        self.log = log
        self.broadcast = broadcast
        self.itemID = itemID
        self.approverCount = approverCount
    }

    // MARK: - PasteGate

    public func pasteRequested(_ request: PasteRequest) -> PasteDecision {
        guard let id = itemID(request.selection) else { return .serve }  // not a history item: nothing to ask
        let item: HistoryItem
        do {
            item = try store.item(id: id)
        } catch {
            // Fail closed: an item whose flag cannot be read might ask.
            log("paste of item \(id) refused: its settings cannot be read (\(error.message))")
            return .refuse
        }
        guard item.asksBeforePaste else {
            record(.served, request: request, itemID: id, question: nil)
            return .serve
        }
        guard approverCount() > 0 else {
            log(
                "\(request.selection.name): refused \(Self.name(of: request.reader))'s paste of item \(id): it asks "
                    + "before pasting and no Pasteboard History app is running to ask (start pasteboard-gtk)")
            record(.noApprover, request: request, itemID: id, question: nil)
            return .refuse
        }
        let deadline = Date().addingTimeInterval(timeout)
        questions[request.ticket] = Question(request: request, itemID: id, deadline: deadline)
        log("\(request.selection.name): asking whether \(Self.name(of: request.reader)) may paste item \(id)")
        var event = ControlEvent(.pasteRequested, id: id, time: Date().timeIntervalSince1970)
        event.request = request.ticket
        event.reader = request.reader.name
        event.readerPID = request.reader.pid
        event.source = item.source
        event.types = item.types.map(\.identifier)
        event.deadline = deadline.timeIntervalSince1970
        broadcast(event)
        return .hold
    }

    // MARK: - Answers

    /// The user's answer to question `ticket`. Throws when it is no longer open (answered, timed out).
    public func answer(_ ticket: Int, allow: Bool) throws(DaemonError) {
        guard let question = questions.removeValue(forKey: ticket) else {
            throw DaemonError("Paste request \(ticket) is no longer waiting (answered already, or timed out).")
        }
        resolve(question, outcome: allow ? .allowed : .refused)
    }

    /// The next moment a question times out.
    public var nextDeadline: Date? { questions.values.map(\.deadline).min() }

    /// Refuses the pastes nobody answered in time, and every open one once no app is left to answer.
    public func processTimeouts(now: Date) {
        let noApprover = !questions.isEmpty && approverCount() == 0
        for (ticket, question) in questions where noApprover || question.deadline <= now {
            questions[ticket] = nil
            resolve(question, outcome: noApprover ? .noApprover : .unanswered)
        }
    }

    private func resolve(_ question: Question, outcome: PasteRecord.Outcome) {
        backend.resolvePaste(ticket: question.request.ticket, allow: outcome.isDelivered)
        log("paste of item \(question.itemID) by \(Self.name(of: question.request.reader)): \(outcome.rawValue)")
        record(outcome, request: question.request, itemID: question.itemID, question: question.request.ticket)
    }

    private func record(_ outcome: PasteRecord.Outcome, request: PasteRequest, itemID: Int64, question: Int?) {
        let entry = PasteRecord(
            date: Date(), reader: request.reader.name, readerPID: request.reader.pid, outcome: outcome)
        do {
            try store.logPaste(entry, itemID: itemID)
        } catch {
            log("could not log a paste of item \(itemID): \(error.message)")
        }
        var event = ControlEvent(.pasted, id: itemID, time: entry.date.timeIntervalSince1970)
        event.request = question
        event.reader = entry.reader
        event.readerPID = entry.readerPID
        event.outcome = outcome.rawValue
        broadcast(event)
    }

    static func name(of reader: SourceApplication) -> String { reader.name ?? "an unknown application" }
}
