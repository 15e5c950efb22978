import FoundationEssentials

/// Which letters, and which pairs of letters, occur in the texts of a block of the history (`SearchBlocks`), folded
/// as search folds them (`SearchFolding`): a search for one or two letters, which the trigram index cannot answer,
/// reads only the blocks that may hold them.
///
/// Each folded scalar has a code: ASCII its own value (0-126), anything else one of 31 codes by its value (a
/// collision only makes a block read for nothing). A pair is bit `first × 128 + second`; a letter alone is bit
/// `code × 128 + 127` (no scalar has code 127). 16,384 bits: 2 KiB a block, stored without its trailing zero bytes
/// (the last 16 always are, as no pair starts with code 127): at most 2,032 bytes, so that two blocks' rows share
/// a page of the store (a row of 2,048 took a page of 4,096 to itself).
struct SearchGrams: Equatable {
    static let bitCount = 128 * 128
    static let byteCount = bitCount / 8

    private(set) var bytes: [UInt8]

    init() {
        bytes = Array(repeating: 0, count: Self.byteCount)
    }

    /// Grams read back from the store (nil when `data` is too long to be grams).
    init?(_ data: Data) {
        guard data.count <= Self.byteCount else { return nil }
        bytes = Array(data) + Array(repeating: 0, count: Self.byteCount - data.count)
    }

    /// The bytes to store: the bits without their trailing zero bytes.
    var data: Data { Data(bytes[..<((bytes.lastIndex { $0 != 0 } ?? -1) + 1)]) }

    static func code(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        return value < 127 ? Int(value) : Int(value % 31)
    }

    static func pair(_ first: Int, _ second: Int) -> Int { first * 128 + second }
    static func single(_ code: Int) -> Int { code * 128 + 127 }

    /// Adds the letters and pairs of `text` (an entry of the search index), folded.
    mutating func add(_ text: String) {
        var previous: Int?
        for scalar in text.unicodeScalars {
            guard let folded = SearchFolding.fold(scalar) else { continue }
            let code = Self.code(folded)
            set(Self.single(code))
            if let previous { set(Self.pair(previous, code)) }
            previous = code
        }
    }

    /// Every gram of `other` as well.
    mutating func formUnion(_ other: SearchGrams) {
        for index in bytes.indices { bytes[index] |= other.bytes[index] }
    }

    private mutating func set(_ bit: Int) { bytes[bit >> 3] |= 1 << UInt8(bit & 7) }

    func contains(_ bit: Int) -> Bool { bytes[bit >> 3] & (1 << UInt8(bit & 7)) != 0 }

    /// The bits a text matching `matcher` must have, or nil when the grams cannot tell (a regex): one letter, or each
    /// pair of letters in a row (two letters; a longer substring the index has no term for, `SearchTerms`: "ab "),
    /// or (fuzzy) each letter; eight at most.
    static func required(by matcher: SearchMatcher) -> [Int]? {
        let scalars = Array(matcher.needle.unicodeScalars)
        guard !scalars.isEmpty else { return nil }
        switch matcher.mode {
        case .substring:
            if scalars.count == 1 { return [single(code(scalars[0]))] }
            var bits: [Int] = []
            for index in 1..<scalars.count where bits.count < 8 {
                let bit = pair(code(scalars[index - 1]), code(scalars[index]))
                if !bits.contains(bit) { bits.append(bit) }
            }
            return bits
        case .fuzzy:
            var bits: [Int] = []
            for scalar in scalars where bits.count < 8 {
                let bit = single(code(scalar))
                if !bits.contains(bit) { bits.append(bit) }
            }
            return bits
        case .regex:
            return nil
        }
    }
}
