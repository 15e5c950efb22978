// Written as for Apple's platforms; only the import differs (there: `import CoreTransferable` and
// `import UniformTypeIdentifiers`). It uses Foundation without importing it, as Apple's imports allow.
import PasteboardKit

struct Video: Transferable {
    let file: URL

    static var transferRepresentation: some TransferRepresentation {
        FileRepresentation(contentType: .mpeg4Movie) { SentTransferredFile($0.file) } importing: { received in
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).mp4")
            try FileManager.default.copyItem(at: received.file, to: copy)
            return Self.init(file: copy)
        }
        ProxyRepresentation(exporting: \.file)
    }
}
