/// Turns a ``Node`` tree into a ``Program`` for the Pike VM: Thompson's construction, with the preferred branch of
/// each choice first so that the matcher can report leftmost-first matches.
///
/// Counted repetition is expanded (`a{2,4}` becomes `aa(?:a(?:a)?)?`), so the cost per scalar of text is
/// checked against ``Program/costLimit`` as instructions are emitted: one step per instruction, and a class as
/// many as testing it takes.
struct Compiler {
    private let source: String
    private var program = Program()
    /// The cost of the instructions so far.
    private var cost = 0

    private init(source: String, classes: [CharacterClass]) {
        self.source = source
        program.classes = classes
    }

    /// The program for `node`, whose classes are `classes`, parsed from `source`.
    static func compile(_ node: Node, classes: [CharacterClass], source: String) throws(PatternError) -> Program {
        var compiler = Compiler(source: source, classes: classes)
        compiler.emit(node)
        compiler.append(.match)
        guard !compiler.isOverBudget else {
            throw PatternError(
                .tooComplex, column: nil,
                problem: "it would take more than \(Program.costLimit) steps per character of text; use smaller "
                    + "counts in {n,m}, fewer nested repetitions, or simpler classes", pattern: source)
        }
        var program = compiler.program
        program.isAnchoredAtStart = isAnchoredAtStart(node)
        program.literals = LiteralFacts(node)
        program.firstBytes = program.startingBytes()
        return program
    }

    // MARK: - Emitting

    private var next: Int { program.instructions.count }

    /// Whether the program costs more than ``Program/costLimit``; emission stops early once it does.
    ///
    /// Emitting does not throw: in a debug build every throwing call site reserves room for an error in its
    /// frame, and emission recurses as deep as the pattern nests.
    private var isOverBudget: Bool { cost > Program.costLimit }

    @discardableResult
    private mutating func append(_ instruction: Instruction) -> Int {
        if case .characterClass(let index) = instruction {
            cost += max(1, program.classes[index].cost)
        } else {
            cost += 1
        }
        program.instructions.append(instruction)
        return program.instructions.count - 1
    }

    private mutating func patch(_ index: Int, _ instruction: Instruction) {
        program.instructions[index] = instruction
    }

    private mutating func emit(_ node: Node) {
        switch node {
        case .empty: break
        case .scalar(let scalar): append(.scalar(scalar.value))
        case .foldedScalar(let value): append(.foldedScalar(value))
        case .anyScalar(let matchesLineTerminators):
            if matchesLineTerminators { emitAnyScalar() } else { append(.anyScalarExceptLineTerminator) }
        case .characterClass(let index): append(.characterClass(index))
        case .assertion(let assertion):
            if assertion == .wordBoundary || assertion == .notWordBoundary { program.usesWordBoundaries = true }
            append(.assertion(assertion))
        case .concatenation(let children):
            for child in children {
                guard !isOverBudget else { return }
                emit(child)
            }
        case .alternation(let branches): emitAlternation(branches)
        case .repetition(let child, let repetition): emitRepetition(child, repetition)
        }
    }

    /// `.` that crosses lines, taking CR LF as one terminator as ICU does: `[^\r]|\r\n|\r(?!\n)`.
    private mutating func emitAnyScalar() {
        let choice = append(.split(0, 0))
        append(.anyScalarExcept(0x0D))
        let firstExit = append(.jump(0))
        let carriageReturn = append(.scalar(0x0D))
        let lineFeedChoice = append(.split(0, 0))
        append(.scalar(0x0A))
        let secondExit = append(.jump(0))
        let alone = append(.assertion(.notBeforeLineFeed))
        patch(choice, .split(choice + 1, carriageReturn))
        patch(lineFeedChoice, .split(lineFeedChoice + 1, alone))
        patch(firstExit, .jump(next))
        patch(secondExit, .jump(next))
    }

    private mutating func emitAlternation(_ branches: [Node]) {
        var exits: [Int] = []
        for (offset, branch) in branches.enumerated() {
            guard !isOverBudget else { return }
            if offset == branches.count - 1 {
                emit(branch)
                break
            }
            let choice = append(.split(0, 0))
            emit(branch)
            exits.append(append(.jump(0)))
            patch(choice, .split(choice + 1, next))
        }
        for exit in exits { patch(exit, .jump(next)) }
    }

    private mutating func emitRepetition(_ child: Node, _ repetition: Repetition) {
        // Repeating nothing is nothing; emitting it a thousand times a thousand times would still take time.
        if repetition.maximum == 0 || Self.emitsNothing(child) { return }
        if let maximum = repetition.maximum {
            emitCopies(of: child, count: repetition.minimum)
            emitOptionalCopies(of: child, count: maximum - repetition.minimum, isGreedy: !repetition.isLazy)
        } else {
            // The last required copy loops.
            emitCopies(of: child, count: repetition.minimum - 1)
            emitLoop(of: child, isSkippable: repetition.minimum == 0, isGreedy: !repetition.isLazy)
        }
    }

    private mutating func emitCopies(of child: Node, count: Int) {
        for _ in 0..<max(count, 0) {
            guard !isOverBudget else { return }
            emit(child)
        }
    }

    /// e+ is body; loop(body, exit). e* is the same behind a split that may skip it, (?:e+)?, so that every
    /// iteration ends at the loop instruction, which stops the loop after an empty iteration.
    private mutating func emitLoop(of child: Node, isSkippable: Bool, isGreedy: Bool) {
        let skip = isSkippable ? append(.split(0, 0)) : nil
        let body = next
        emit(child)
        append(.loop(body: body, exit: next + 1, prefersBody: isGreedy))
        if let skip { patch(skip, choose(skip + 1, next, isGreedy)) }
    }

    /// Optional copies, nested: (?:e(?:e)?)?.
    private mutating func emitOptionalCopies(of child: Node, count: Int, isGreedy: Bool) {
        var choices: [Int] = []
        for _ in 0..<count {
            guard !isOverBudget else { return }
            choices.append(append(.split(0, 0)))
            emit(child)
        }
        for choice in choices { patch(choice, choose(choice + 1, next, isGreedy)) }
    }

    /// A split preferring `stay` when greedy, `leave` when lazy.
    private func choose(_ stay: Int, _ leave: Int, _ isGreedy: Bool) -> Instruction {
        isGreedy ? .split(stay, leave) : .split(leave, stay)
    }

    /// Whether `node` compiles to no instruction at all.
    private static func emitsNothing(_ node: Node) -> Bool {
        switch node {
        case .empty: return true
        case .concatenation(let children): return children.allSatisfy(emitsNothing)
        case .repetition(let child, let repetition): return repetition.maximum == 0 || emitsNothing(child)
        default: return false
        }
    }

    // MARK: - Facts for the matcher

    /// Whether every match of `node` must start at the start of the text.
    private static func isAnchoredAtStart(_ node: Node) -> Bool {
        switch node {
        case .assertion(let assertion): return assertion == .startOfText
        case .concatenation(let children):
            guard let first = children.first(where: { if case .empty = $0 { false } else { true } }) else {
                return false
            }
            return isAnchoredAtStart(first)
        case .alternation(let branches): return branches.allSatisfy(isAnchoredAtStart)
        case .repetition(let child, let repetition): return repetition.minimum > 0 && isAnchoredAtStart(child)
        default: return false
        }
    }
}
