/// The merge rules. An item's state is a function of the set of operations seen, whatever order they came in:
/// each field keeps the operation with the greatest clock, and whether the item is in the history follows from
/// those maxima. Every device that has seen the same operations therefore shows the same history.
extension SyncState.Entry {
    /// Takes in one operation about this item; returns whether its latest copy changed (it moves to the top).
    @discardableResult
    mutating func apply(_ operation: SyncOperation) -> Bool {
        switch operation.kind {
        case .copy:
            guard copy.map({ operation.clock > $0 }) ?? true else { return false }
            copy = operation.clock
            record = operation
            return true
        case .delete:
            if deleted.map({ operation.clock > $0 }) ?? true { deleted = operation.clock }
        case .pin, .unpin:
            if pin.map({ operation.clock > $0 }) ?? true {
                pin = operation.clock
                isPinned = operation.kind == .pin
            }
        case .clear:
            break  // kept on the state as a whole (`SyncState.Clears`)
        }
        return false
    }

    /// Whether the item is in the history: copied after its latest delete and after the latest clear (a clear
    /// that kept pinned items spares it while it is pinned). A delete removes every copy older than itself; a copy
    /// after it brings the item back.
    func isAlive(_ clears: SyncState.Clears) -> Bool {
        guard let copy else { return false }
        if let deleted, deleted > copy { return false }
        if let all = clears.all, all > copy { return false }
        if let unpinned = clears.unpinned, unpinned > copy, !isPinned { return false }
        return true
    }
}

extension SyncState.Clears {
    /// Takes in a clear; returns whether it is newer than what was known.
    mutating func apply(_ operation: SyncOperation) -> Bool {
        guard operation.kind == .clear else { return false }
        if operation.keepsPinned == true {
            guard unpinned.map({ operation.clock > $0 }) ?? true else { return false }
            unpinned = operation.clock
        } else {
            guard all.map({ operation.clock > $0 }) ?? true else { return false }
            all = operation.clock
        }
        return true
    }
}
