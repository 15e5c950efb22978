/// The threads of the Pike VM at one position: a sparse set of instruction indices, in priority order, each with
/// the offset where its match attempt started.
///
/// Membership is a constant-time check of `sparse` against `dense` (Briggs and Torczon's sparse set), so clearing
/// is setting `count` to 0 and no memory is touched per scalar. The storage belongs to the caller and outlives
/// the list.
struct ThreadList {
    /// Instruction index → slot in `dense`, meaningful only when `dense` agrees.
    private let sparse: UnsafeMutablePointer<Int>
    /// Instruction indices, highest priority first.
    let dense: UnsafeMutablePointer<Int>
    /// The start offset of the thread in each slot.
    let starts: UnsafeMutablePointer<Int>
    /// How many slots are in use.
    var count = 0

    /// A list over `storage`, which holds three times `capacity` integers, all initialized.
    init(storage: UnsafeMutablePointer<Int>, capacity: Int) {
        sparse = storage
        dense = storage + capacity
        starts = storage + 2 * capacity
    }

    @inline(__always)
    func contains(_ pc: Int) -> Bool {
        let slot = sparse[pc]
        return slot < count && dense[slot] == pc
    }

    @inline(__always)
    mutating func insert(_ pc: Int, start: Int) {
        sparse[pc] = count
        dense[count] = pc
        starts[count] = start
        count += 1
    }
}
