// Written as for Apple's platforms; only the import differs (there: `import CoreTransferable` and
// `import UniformTypeIdentifiers`).
import PasteboardKit

struct Profile: Codable, Equatable {
    var id: UUID
    var name: String
    var bio: String
    var funFacts: [String]
    var video: URL?
    var portrait: URL?
}

extension Profile: Transferable {
    static var transferRepresentation: some TransferRepresentation {
        CodableRepresentation(contentType: .profile)
        CodableRepresentation(contentType: .legacyProfile)
        ProxyRepresentation(exporting: \.name)
    }
}

/// One fact of a profile, which pastes into a text field and can be pasted back from one.
struct FunFact: Equatable, Transferable {
    var text: String

    static var transferRepresentation: some TransferRepresentation<FunFact> {
        DataRepresentation(exportedContentType: .funFact) { fact in
            Data(fact.text.utf8)
        }
        ProxyRepresentation(exporting: \.text, importing: { text in FunFact(text: text) })
    }
}
