/// What the literal parts of a pattern say about every match, in UTF-8 bytes: the prefilters that let the matcher
/// skip text without running the program over it.
///
/// Only case-sensitive literals count; a case-insensitive letter, a class or `.` ends a literal run.
struct LiteralFacts: Sendable {
    /// The pattern matches exactly these bytes and nothing else (no class, no assertion): a substring search.
    var exact: [UInt8]?
    /// Every match starts with these bytes.
    var prefix: [UInt8] = []
    /// Every match contains these bytes.
    var required: [UInt8] = []

    /// The longest prefix or required literal kept; more would cost time and buy nothing.
    static let lengthLimit = 256

    init() {}

    /// The facts of the pattern `node`.
    init(_ node: Node) {
        let facts = Facts(node)
        exact = facts.isPure ? facts.exact : nil
        prefix = Array((facts.exact ?? facts.prefix).prefix(Self.lengthLimit))
        required = Facts.longer(facts.required, prefix)
    }

    /// The facts of one node.
    private struct Facts {
        /// The node matches exactly these bytes, apart from zero-width assertions.
        var exact: [UInt8]?
        /// `exact` holds and the node has no assertion.
        var isPure = false
        var prefix: [UInt8] = []
        var required: [UInt8] = []

        static let empty = Facts(exact: [], isPure: true)
        static let unknown = Facts(exact: nil)

        init(exact: [UInt8]?, isPure: Bool = false) {
            self.exact = exact
            self.isPure = isPure
        }

        init(_ node: Node) {
            switch node {
            case .empty: self = .empty
            case .scalar(let scalar): self.init(exact: Array(String(scalar).utf8), isPure: true)
            case .assertion: self.init(exact: [])
            case .foldedScalar, .anyScalar, .characterClass: self = .unknown
            case .concatenation(let children): self.init(concatenating: children)
            case .alternation(let branches): self.init(alternating: branches)
            case .repetition(let child, let repetition): self.init(repeating: child, repetition)
            }
        }

        private init(concatenating children: [Node]) {
            var exact: [UInt8]? = []
            var isPure = true
            var prefix: [UInt8] = []
            var isPrefixOpen = true
            var run: [UInt8] = []
            var best: [UInt8] = []
            for child in children {
                let facts = Facts(child)
                isPure = isPure && facts.isPure
                if let childExact = facts.exact {
                    exact?.append(contentsOf: childExact)
                    run.append(contentsOf: childExact)
                    if isPrefixOpen { prefix.append(contentsOf: childExact) }
                } else {
                    exact = nil
                    run.append(contentsOf: facts.prefix)
                    if isPrefixOpen {
                        prefix.append(contentsOf: facts.prefix)
                        isPrefixOpen = false
                    }
                    best = Self.longer(Self.longer(best, run), facts.required)
                    run = []
                }
            }
            self.init(exact: exact, isPure: isPure && exact != nil)
            self.prefix = Array(prefix.prefix(LiteralFacts.lengthLimit))
            required = Array(Self.longer(best, run).prefix(LiteralFacts.lengthLimit))
        }

        private init(alternating branches: [Node]) {
            var common: [UInt8]?
            for branch in branches {
                let facts = Facts(branch)
                let start = facts.exact ?? facts.prefix
                guard let sofar = common else {
                    common = start
                    continue
                }
                common = Array(zip(sofar, start).prefix { $0 == $1 }.map(\.0))
            }
            self.init(exact: nil)
            prefix = common ?? []
            required = prefix
        }

        private init(repeating child: Node, _ repetition: Repetition) {
            if repetition.maximum == 0 {
                self = .empty
                return
            }
            guard repetition.minimum > 0 else {
                self = .unknown
                return
            }
            let facts = Facts(child)
            var repeated: [UInt8]?
            if let childExact = facts.exact, childExact.count * repetition.minimum <= LiteralFacts.lengthLimit {
                repeated = Array(repeatElement(childExact, count: repetition.minimum).joined())
            }
            if repetition.maximum == repetition.minimum, let repeated {
                self.init(exact: repeated, isPure: facts.isPure)
                return
            }
            self.init(exact: nil)
            prefix = repeated ?? facts.exact ?? facts.prefix
            required = Self.longer(facts.required, prefix)
        }

        static func longer(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
            second.count > first.count ? second : first
        }
    }
}
