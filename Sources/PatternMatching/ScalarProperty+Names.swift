// MARK: - Names of properties, as `\p{…}` and `[:…:]` spell them

extension ScalarProperty {
    /// The property `\p{name}` names, or nil when it is not one this engine knows.
    ///
    /// Matching is loose, as in ICU: case, spaces, hyphens and underscores are ignored, and `gc=`,
    /// `General_Category=` and `Is` prefixes are accepted. General categories take their short (`Lu`) or long
    /// (`Uppercase_Letter`) names; the binary properties are Alphabetic, Uppercase, Lowercase, White_Space, Any,
    /// ASCII and Assigned.
    static func named(_ name: String) -> CharacterClass.Expression? {
        var key = String(name.lowercased().unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" })
        for prefix in ["generalcategory=", "gc="] where key.hasPrefix(prefix) {
            key.removeFirst(prefix.count)
            return categoryNames[key].map { .property(.generalCategories($0)) }
        }
        if let expression = lookUp(key) { return expression }
        if key.hasPrefix("is") { return lookUp(String(key.dropFirst(2))) }
        return nil
    }

    /// The POSIX class `[:name:]`, with ICU's Unicode definitions.
    static func posixClass(_ name: String) -> ScalarProperty? {
        switch name {
        case "alpha": return .alphabetic
        case "digit": return .decimalDigit
        case "alnum": return .alphanumeric
        case "upper": return .uppercase
        case "lower": return .lowercase
        case "space": return .whitespace
        case "blank": return .horizontalWhitespace
        case "punct": return .generalCategories(categoryNames["p"] ?? 0)
        case "cntrl": return .generalCategories(categoryBit(.control))
        case "xdigit": return .hexDigit
        case "word": return .word
        case "graph": return .graphic
        case "print": return .printable
        default: return nil
        }
    }

    private static func lookUp(_ key: String) -> CharacterClass.Expression? {
        if let mask = categoryNames[key] { return .property(.generalCategories(mask)) }
        switch key {
        case "alphabetic", "alpha": return .property(.alphabetic)
        case "uppercase", "upper": return .property(.uppercase)
        case "lowercase", "lower": return .property(.lowercase)
        case "whitespace", "space", "wspace": return .property(.whitespace)
        case "any": return .property(.any)
        case "ascii": return .property(.ascii)
        case "assigned": return .complement(.property(.generalCategories(categoryBit(.unassigned))))
        default: return nil
        }
    }

    // MARK: - General categories

    /// The bit standing for `category` in a ``generalCategories(_:)`` mask.
    static func categoryBit(_ category: Unicode.GeneralCategory) -> UInt32 {
        switch category {
        case .uppercaseLetter: return 1 << 0
        case .lowercaseLetter: return 1 << 1
        case .titlecaseLetter: return 1 << 2
        case .modifierLetter: return 1 << 3
        case .otherLetter: return 1 << 4
        case .nonspacingMark: return 1 << 5
        case .spacingMark: return 1 << 6
        case .enclosingMark: return 1 << 7
        case .decimalNumber: return 1 << 8
        case .letterNumber: return 1 << 9
        case .otherNumber: return 1 << 10
        case .connectorPunctuation: return 1 << 11
        case .dashPunctuation: return 1 << 12
        case .openPunctuation: return 1 << 13
        case .closePunctuation: return 1 << 14
        case .initialPunctuation: return 1 << 15
        case .finalPunctuation: return 1 << 16
        case .otherPunctuation: return 1 << 17
        case .mathSymbol: return 1 << 18
        case .currencySymbol: return 1 << 19
        case .modifierSymbol: return 1 << 20
        case .otherSymbol: return 1 << 21
        case .spaceSeparator: return 1 << 22
        case .lineSeparator: return 1 << 23
        case .paragraphSeparator: return 1 << 24
        case .control: return 1 << 25
        case .format: return 1 << 26
        case .surrogate: return 1 << 27
        case .privateUse: return 1 << 28
        case .unassigned: return 1 << 29
        @unknown default: return 1 << 29
        }
    }

    /// Short and long category names, loosely spelled, to their masks; one-letter names are the unions.
    private static let categoryNames: [String: UInt32] = {
        let single: [(short: String, long: String, category: Unicode.GeneralCategory)] = [
            ("lu", "uppercaseletter", .uppercaseLetter), ("ll", "lowercaseletter", .lowercaseLetter),
            ("lt", "titlecaseletter", .titlecaseLetter), ("lm", "modifierletter", .modifierLetter),
            ("lo", "otherletter", .otherLetter), ("mn", "nonspacingmark", .nonspacingMark),
            ("mc", "spacingmark", .spacingMark), ("me", "enclosingmark", .enclosingMark),
            ("nd", "decimalnumber", .decimalNumber), ("nl", "letternumber", .letterNumber),
            ("no", "othernumber", .otherNumber), ("pc", "connectorpunctuation", .connectorPunctuation),
            ("pd", "dashpunctuation", .dashPunctuation), ("ps", "openpunctuation", .openPunctuation),
            ("pe", "closepunctuation", .closePunctuation), ("pi", "initialpunctuation", .initialPunctuation),
            ("pf", "finalpunctuation", .finalPunctuation), ("po", "otherpunctuation", .otherPunctuation),
            ("sm", "mathsymbol", .mathSymbol), ("sc", "currencysymbol", .currencySymbol),
            ("sk", "modifiersymbol", .modifierSymbol), ("so", "othersymbol", .otherSymbol),
            ("zs", "spaceseparator", .spaceSeparator), ("zl", "lineseparator", .lineSeparator),
            ("zp", "paragraphseparator", .paragraphSeparator), ("cc", "control", .control),
            ("cf", "format", .format), ("cs", "surrogate", .surrogate), ("co", "privateuse", .privateUse),
            ("cn", "unassigned", .unassigned),
        ]
        var names: [String: UInt32] = [:]
        for entry in single {
            names[entry.short] = categoryBit(entry.category)
            names[entry.long] = categoryBit(entry.category)
        }
        let groups: [(short: String, long: [String])] = [
            ("l", ["letter"]), ("m", ["mark", "combiningmark"]), ("n", ["number"]), ("p", ["punctuation", "punct"]),
            ("s", ["symbol"]), ("z", ["separator"]), ("c", ["other"]),
        ]
        for group in groups {
            let mask = single.filter { $0.short.hasPrefix(group.short) }.reduce(UInt32(0)) {
                $0 | categoryBit($1.category)
            }
            names[group.short] = mask
            for long in group.long { names[long] = mask }
        }
        names["lc"] = categoryBit(.uppercaseLetter) | categoryBit(.lowercaseLetter) | categoryBit(.titlecaseLetter)
        names["casedletter"] = names["lc"]
        names["l&"] = names["lc"]
        names["digit"] = categoryBit(.decimalNumber)
        names["cntrl"] = categoryBit(.control)
        return names
    }()
}
