// Written as for Apple's platforms; only the import differs (there: `import UniformTypeIdentifiers`).
import PasteboardKit

extension UTType {
    /// A profile, encoded as JSON.
    static let profile = UTType(exportedAs: "com.example.profile", conformingTo: .json)

    /// A profile written by an older version of another program.
    static let legacyProfile = UTType(importedAs: "com.example.legacy-profile")

    /// A fun fact, as its own type that conforms to `.data`.
    static var funFact: UTType { UTType(exportedAs: "com.example.fun-fact") }
}
