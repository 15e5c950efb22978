/// Runs a ``Program`` over UTF-8 text: a Pike VM, after Thompson and Pike as Russ Cox describes them.
///
/// All live threads advance in lockstep, one scalar at a time; a thread that reaches an instruction another thread
/// already holds at the same position is dropped, so there are never more threads than instructions. The cost is
/// therefore at most the length of the text times the size of the program, whatever the pattern, and nothing is
/// allocated per scalar: the two thread lists and the stack live in one temporary allocation.
///
/// Threads are kept in priority order (the preferred branch of each split first), and a match cuts off every
/// lower-priority thread, which gives the leftmost-first semantics of backtracking engines: the reported range is
/// the one NSRegularExpression and Perl report for greedy and lazy quantifiers.
struct Matcher {
    private let instructions: UnsafeBufferPointer<Instruction>
    private let classes: UnsafeBufferPointer<CharacterClass>
    private let text: TextBuffer
    /// The stack for following non-consuming instructions; never deeper than the program is long.
    private let stack: UnsafeMutablePointer<Int>
    private let finalTerminatorStart: Int

    /// The leftmost-first match of `program` in `bytes`, as byte offsets; with `stoppingAtAnyMatch`, whichever
    /// match is found first, which is enough to say whether there is one.
    static func firstMatch(of program: Program, in bytes: UnsafeBufferPointer<UInt8>, stoppingAtAnyMatch: Bool)
        -> Range<Int>?
    {
        let text = TextBuffer(bytes: bytes)
        if let exact = program.literals.exact {
            guard !exact.isEmpty else { return 0..<0 }
            return text.firstOffset(of: exact, from: 0).map { $0..<($0 + exact.count) }
        }
        let required = program.literals.required
        if !required.isEmpty && text.firstOffset(of: required, from: 0) == nil { return nil }
        let size = program.instructions.count
        return program.instructions.withUnsafeBufferPointer { instructions in
            program.classes.withUnsafeBufferPointer { classes in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 7 * size + 1) { storage in
                    guard let base = storage.baseAddress else { return nil }
                    base.initialize(repeating: 0, count: storage.count)
                    defer { base.deinitialize(count: storage.count) }
                    let matcher = Matcher(
                        instructions: instructions, classes: classes, text: text, stack: base + 6 * size,
                        finalTerminatorStart: text.finalTerminatorStart ?? -1)
                    return matcher.run(
                        program, current: ThreadList(storage: base, capacity: size),
                        next: ThreadList(storage: base + 3 * size, capacity: size),
                        stoppingAtAnyMatch: stoppingAtAnyMatch)
                }
            }
        }
    }

    // MARK: - The simulation

    private func run(_ program: Program, current: ThreadList, next: ThreadList, stoppingAtAnyMatch: Bool)
        -> Range<Int>?
    {
        var current = current
        var next = next
        let end = text.count
        let usesWordBoundaries = program.usesWordBoundaries
        // Skipping to the next possible start needs no word-ness of the text skipped, and is useless when only the
        // start of the text can start a match.
        let skipsAhead =
            !usesWordBoundaries && !program.isAnchoredAtStart
            && (!program.literals.prefix.isEmpty || program.firstBytes != nil)
        var position = 0
        var previousIsWord = false
        var matchStart = -1
        var matchEnd = -1
        while true {
            if matchEnd < 0 && (position == 0 || !program.isAnchoredAtStart) {
                if current.count == 0 && skipsAhead {
                    guard let candidate = nextCandidate(program, from: position) else { break }
                    position = candidate
                }
                add(0, start: position, to: &current, at: position, previousIsWord: previousIsWord)
            }
            if current.count == 0 { break }
            if position == end {
                for slot in 0..<current.count {
                    if case .match = instructions[current.dense[slot]] {
                        matchStart = current.starts[slot]
                        matchEnd = position
                        break
                    }
                }
                break
            }
            let (scalar, length) = text.scalar(at: position)
            let nextPosition = position + length
            var nextIsWord = previousIsWord
            if usesWordBoundaries, let value = Unicode.Scalar(scalar),
                !ScalarProperty.isTransparentToWordBoundary(value)
            {
                nextIsWord = ScalarProperty.isWord(value)
            }
            var slot = 0
            while slot < current.count {
                let pc = current.dense[slot]
                let fits: Bool
                switch instructions[pc] {
                case .match:
                    matchStart = current.starts[slot]
                    matchEnd = position
                    if stoppingAtAnyMatch { return matchStart..<matchEnd }
                    // Every thread after this one has lower priority than the match: drop them.
                    slot = current.count
                    continue
                case .scalar(let value): fits = scalar == value
                case .foldedScalar(let value): fits = CaseFolding.fold(scalar) == value
                case .anyScalarExcept(let value): fits = scalar != value
                case .anyScalarExceptLineTerminator: fits = !Node.isLineTerminator(scalar)
                case .characterClass(let index): fits = classes[index].contains(scalar)
                case .split, .loop, .jump, .assertion: fits = false
                }
                if fits {
                    add(pc + 1, start: current.starts[slot], to: &next, at: nextPosition, previousIsWord: nextIsWord)
                }
                slot += 1
            }
            swap(&current, &next)
            next.count = 0
            position = nextPosition
            previousIsWord = nextIsWord
        }
        return matchEnd >= 0 ? matchStart..<matchEnd : nil
    }

    /// The next offset at or after `position` where a match can start, by the program's prefix or first bytes.
    private func nextCandidate(_ program: Program, from position: Int) -> Int? {
        if !program.literals.prefix.isEmpty { return text.firstOffset(of: program.literals.prefix, from: position) }
        if let firstBytes = program.firstBytes { return text.firstOffset(of: firstBytes, from: position) }
        return position
    }

    /// Adds the thread at `pc` to `list`, following jumps, splits and assertions depth-first, preferred branch
    /// first, so that the list stays in priority order.
    @inline(__always)
    private func add(_ pc: Int, start: Int, to list: inout ThreadList, at position: Int, previousIsWord: Bool) {
        switch instructions[pc] {
        case .split, .loop, .jump, .assertion:
            follow(pc, start: start, to: &list, at: position, previousIsWord: previousIsWord)
        default:
            // A consuming instruction or a match: nothing to follow (the common case, kept cheap).
            if !list.contains(pc) { list.insert(pc, start: start) }
        }
    }

    private func follow(_ pc: Int, start: Int, to list: inout ThreadList, at position: Int, previousIsWord: Bool) {
        stack[0] = pc
        var depth = 1
        while depth > 0 {
            depth -= 1
            let pc = stack[depth]
            if list.contains(pc) {
                // Back at the end of an iteration without consuming anything: the iteration was empty, so the
                // loop stops here, at this priority. (Its exit is popped next, so the stack does not grow.)
                if case .loop(_, let exit, _) = instructions[pc], !list.contains(exit) {
                    stack[depth] = exit
                    depth += 1
                }
                continue
            }
            list.insert(pc, start: start)
            switch instructions[pc] {
            case .jump(let target):
                stack[depth] = target
                depth += 1
            case .split(let preferred, let other):
                stack[depth] = other
                stack[depth + 1] = preferred
                depth += 2
            case .loop(let body, let exit, let prefersBody):
                if list.contains(body) {
                    stack[depth] = exit
                    depth += 1
                } else {
                    stack[depth] = prefersBody ? exit : body
                    stack[depth + 1] = prefersBody ? body : exit
                    depth += 2
                }
            case .assertion(let assertion):
                if holds(assertion, at: position, previousIsWord: previousIsWord) {
                    stack[depth] = pc + 1
                    depth += 1
                }
            default:
                break
            }
        }
    }

    // MARK: - Assertions

    private func holds(_ assertion: Assertion, at position: Int, previousIsWord: Bool) -> Bool {
        let end = text.count
        switch assertion {
        case .startOfText:
            return position == 0
        case .endOfText:
            return position == end
        case .endOfTextOrBeforeFinalTerminator:
            return position == end || position == finalTerminatorStart
        case .startOfLine:
            guard position > 0 else { return true }
            guard position < end else { return false }
            let previous = text.scalar(before: position)
            return Node.isLineTerminator(previous) && !(previous == 0x0D && text.bytes[position] == 0x0A)
        case .endOfLine:
            guard position < end else { return true }
            let following = text.scalar(at: position).value
            return Node.isLineTerminator(following)
                && !(following == 0x0A && position > 0 && text.bytes[position - 1] == 0x0D)
        case .wordBoundary:
            return isWordBoundary(at: position, previousIsWord: previousIsWord)
        case .notWordBoundary:
            return !isWordBoundary(at: position, previousIsWord: previousIsWord)
        case .notBeforeLineFeed:
            return position == end || text.bytes[position] != 0x0A
        }
    }

    /// ICU's rule: a boundary where word-ness changes, looking through grapheme extenders and format characters,
    /// and never just before one of them.
    private func isWordBoundary(at position: Int, previousIsWord: Bool) -> Bool {
        var nextIsWord = false
        if position < text.count, let following = Unicode.Scalar(text.scalar(at: position).value) {
            if ScalarProperty.isTransparentToWordBoundary(following) { return false }
            nextIsWord = ScalarProperty.isWord(following)
        }
        return nextIsWord != previousIsWord
    }
}
