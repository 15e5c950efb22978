/// The literal every match of a pattern contains, for a search index that holds texts with their accents dropped
/// and compares them ignoring case: a prefilter that narrows the texts the pattern runs over, never one that drops
/// a text a match is in.
///
/// A scalar matched exactly counts, and so does a case-insensitive ASCII letter other than `s`: every scalar whose
/// case fold is such a letter lowers (after its accents are dropped) to that letter, except `ſ` (U+017F, folded to
/// `s`). Any other case-insensitive scalar, a class, `.` or an optional part ends the run; an alternation keeps the
/// start its branches share.
enum IndexLiteral {
    /// The longest run kept, in scalars: more would cost index terms and buy nothing.
    static let lengthLimit = 64

    static func required(_ node: Node) -> [Unicode.Scalar] { Facts(node).required }

    private struct Facts {
        /// The node matches exactly these scalars (in the index's terms), apart from zero-width assertions.
        var exact: [Unicode.Scalar]?
        var prefix: [Unicode.Scalar] = []
        var required: [Unicode.Scalar] = []

        static let empty = Facts(exact: [])
        static let unknown = Facts(exact: nil)

        init(exact: [Unicode.Scalar]?) {
            self.exact = exact
            if let exact {
                prefix = exact
                required = exact
            }
        }

        init(_ node: Node) {
            switch node {
            case .empty, .assertion: self = .empty
            case .scalar(let scalar): self.init(exact: [scalar])
            case .foldedScalar(let value):
                // An ASCII letter but `s`: what the index's own case folding maps every one of its variants to.
                if value < 0x80, let scalar = Unicode.Scalar(value), scalar.properties.isLowercase, value != 0x73 {
                    self.init(exact: [scalar])
                } else {
                    self = .unknown
                }
            case .anyScalar, .characterClass: self = .unknown
            case .concatenation(let children): self.init(concatenating: children)
            case .alternation(let branches): self.init(alternating: branches)
            case .repetition(let child, let repetition): self.init(repeating: child, repetition)
            }
        }

        private init(concatenating children: [Node]) {
            var exact: [Unicode.Scalar]? = []
            var prefix: [Unicode.Scalar] = []
            var isPrefixOpen = true
            var run: [Unicode.Scalar] = []
            var best: [Unicode.Scalar] = []
            for child in children {
                let facts = Facts(child)
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
                    // What follows a part that is not exact is not next to this run.
                    run = []
                }
            }
            if let exact, exact.count <= IndexLiteral.lengthLimit {
                self.init(exact: exact)
                return
            }
            // Too long to be kept whole: its start stands for it, and is not next to what follows.
            self.init(exact: nil)
            self.prefix = Array(prefix.prefix(IndexLiteral.lengthLimit))
            required = Array(Self.longer(best, run).prefix(IndexLiteral.lengthLimit))
        }

        private init(alternating branches: [Node]) {
            var common: [Unicode.Scalar]?
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
            var repeated: [Unicode.Scalar]?
            if let childExact = facts.exact, childExact.count * repetition.minimum <= IndexLiteral.lengthLimit {
                repeated = Array(repeatElement(childExact, count: repetition.minimum).joined())
            }
            if repetition.maximum == repetition.minimum, let repeated {
                self.init(exact: repeated)
                return
            }
            self.init(exact: nil)
            prefix = repeated ?? facts.exact ?? facts.prefix
            required = Self.longer(facts.required, prefix)
        }

        static func longer(_ first: [Unicode.Scalar], _ second: [Unicode.Scalar]) -> [Unicode.Scalar] {
            second.count > first.count ? second : first
        }
    }
}
