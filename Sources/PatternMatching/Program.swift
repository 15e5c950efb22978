/// A compiled pattern: the instructions a ``Matcher`` runs, and what is known about every match in advance.
struct Program: Sendable {
    /// The most steps one scalar of text may cost: instructions, with a class counting as its
    /// ``CharacterClass/cost``. A program has at most this many instructions. 2,000 keeps the worst case of a
    /// daemon rule on its 1 MiB of text, or of a search on an item's 256 KiB, to about a second.
    static let costLimit = 2_000

    /// The instructions; execution starts at 0.
    var instructions: [Instruction] = []
    /// The classes `.characterClass` refers to.
    var classes: [CharacterClass] = []
    /// Whether every match starts at the start of the text, so that only one start needs trying.
    var isAnchoredAtStart = false
    /// Whether some instruction tests a word boundary; the matcher then tracks the word-ness of the text behind it.
    var usesWordBoundaries = false
    /// What every match contains, starts with, or is.
    var literals = LiteralFacts()
    /// The bytes every match can start with, when they are few enough to skip to; nil otherwise.
    var firstBytes: ByteSet?
}

extension Program {
    /// The bytes every match starts with, or nil when a match may be empty, may start after an assertion, or may
    /// start with so many different bytes that skipping to them would not pay.
    func startingBytes() -> ByteSet? {
        var bytes = ByteSet()
        var visited = Set<Int>()
        var pending = [0]
        while let pc = pending.popLast() {
            guard visited.insert(pc).inserted else { continue }
            switch instructions[pc] {
            case .scalar(let value): bytes.insert(UTF8.leadByte(of: value))
            case .foldedScalar(let value):
                _ = CaseFolding.anyVariant(of: value) { variant in
                    bytes.insert(UTF8.leadByte(of: variant))
                    return false
                }
            case .characterClass(let index):
                for byte in UInt8(0)..<0x80 where classes[index].containsASCII(byte) { bytes.insert(byte) }
                for byte in classes[index].possibleLeadBytes { bytes.insert(byte) }
            case .split(let preferred, let other), .loop(let preferred, let other, _): pending += [other, preferred]
            case .jump(let target): pending.append(target)
            case .anyScalarExcept, .anyScalarExceptLineTerminator, .assertion, .match: return nil
            }
        }
        return bytes.count <= Self.skippableByteLimit ? bytes : nil
    }

    /// Above this many possible first bytes, the matcher does not skip ahead to the next one.
    private static let skippableByteLimit = 160
}
