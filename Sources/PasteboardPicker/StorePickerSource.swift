import FoundationEssentials
public import PasteboardHistory
import Synchronization
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// The picker's rows from the history store, listed by a `HistoryListModel` on its own thread and connection.
/// `onChange` hears of each pin and delete (to stop a daemon serving a deleted item); `changes`, when given, says
/// when someone else changed the history, and the picker lists its rows again.
public final class StorePickerSource: PickerSource {
    let store: HistoryStore
    let onChange: (_ event: String, _ id: Int64) -> Void
    public var changes: (any HistoryChangeSignal)?
    private let list: HistoryListModel
    private let inbox: Inbox

    public init(store: HistoryStore, onChange: @escaping (_ event: String, _ id: Int64) -> Void = { _, _ in }) throws(PickerError) {
        self.store = store
        self.onChange = onChange
        let inbox = try Inbox()
        self.inbox = inbox
        list = HistoryListModel(location: store.location, label: "pb.pick.list") { update in inbox.post(update) }
    }

    public func search(_ filter: HistoryFilter, below: Int64?, start: Int, limit: Int) -> Int {
        if let below { return list.search(filter, below: below, start: start, limit: limit) }
        return list.search(filter, limit: limit)
    }

    public func takeUpdates() -> [HistoryListModel.Update] { inbox.take() }

    public var wakeDescriptor: Int32 { inbox.readEnd }

    public func text(of id: Int64, limit: Int) throws -> String? {
        try store.textPrefix(id: id, limit: limit)
    }

    public func recognizedText(of id: Int64) throws -> String? {
        try store.recognizedText(id: id)
    }

    public func image(of id: Int64, limit: Int) throws -> [UInt8]? {
        let item = try store.item(id: id)
        guard item.kind == .image, item.size <= limit else { return nil }
        let payload = try store.pasteboardItem(id: id)
        guard let type = payload.types.first(where: { $0.conforms(to: .image) }), let data = payload.data(forType: type)
        else { return nil }
        return Array(data)
    }

    public func setPinned(_ isPinned: Bool, id: Int64) throws {
        try store.setPinned(isPinned, id: id)
        onChange(isPinned ? "pinned" : "unpinned", id)
    }

    public func delete(id: Int64) throws {
        try store.delete(id: id)
        onChange("deleted", id)
    }
}

/// The list model's updates on their way to the picker's loop: kept in order, with a pipe that wakes its `poll`.
final class Inbox: Sendable {
    private let updates = Mutex<[HistoryListModel.Update]>([])
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(PickerError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            let cause = SystemError.last("pipe")
            throw PickerError("Cannot create a pipe: \(cause.reason).", cause: cause)
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// From the model's thread.
    func post(_ update: HistoryListModel.Update) {
        updates.withLock { $0.append(update) }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // a full pipe already wakes the loop
    }

    func take() -> [HistoryListModel.Update] {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &buffer, buffer.count) > 0 {}
        return updates.withLock { updates in
            defer { updates = [] }
            return updates
        }
    }
}
