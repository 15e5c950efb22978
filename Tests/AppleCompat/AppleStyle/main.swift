// The check that runs the Apple-style code above: it moves each type through an in-memory pasteboard and
// reads it back, and asks the `UTType` questions Apple's API answers. This file alone is not Apple code.
// It prints each failed check and exits with status 1 when there is one.
import PasteboardKit

var failures: [String] = []

@MainActor func check(_ condition: Bool, _ description: String) {
    if !condition { failures.append(description) }
}

Pasteboard.useInMemoryPasteboard()
let pasteboard = Pasteboard.general

// MARK: - UTType

check(UTType.profile.identifier == "com.example.profile", "UTType(exportedAs:conformingTo:) keeps its identifier")
check(UTType.profile.conforms(to: .json), "a profile conforms to JSON")
check(UTType.profile.conforms(to: .text), "a profile conforms to text, through JSON")
check(UTType.legacyProfile.conforms(to: .data), "UTType(importedAs:) conforms to data")
check(UTType.funFact.conforms(to: .data), "UTType(exportedAs:) conforms to data")
check(UTType(filenameExtension: "png") == .png, "UTType(filenameExtension:)")
check(UTType(mimeType: "image/jpeg") == .jpeg, "UTType(mimeType:)")
check(UTType.png.preferredMIMEType == "image/png", "preferredMIMEType")
check(UTType.jpeg.preferredFilenameExtension == "jpg", "preferredFilenameExtension")
check(UTType.commaSeparatedText.conforms(to: .text), "CSV is text")
check(UTType.mpeg4Movie.conforms(to: .movie), "MPEG-4 is a movie")
check(UTType.utf8PlainText.conforms(to: .plainText), "UTF-8 text is plain text")
check(UTType.fileURL.conforms(to: .url), "a file URL is a URL")
check(UTType.pdf.conforms(to: .data), "PDF is data")
check(UTType.image.isSupertype(of: .png) && UTType.png.isSubtype(of: .image), "supertype and subtype")
let names: [UTType] = [
    .item, .data, .content, .text, .plainText, .utf8PlainText, .json, .xml, .html, .rtf, .url,
    .fileURL, .image, .png, .jpeg, .gif, .tiff, .heic, .svg, .pdf, .movie, .mpeg4Movie, .quickTimeMovie, .audio, .mp3,
    .zip, .gzip, .bz2, .folder, .directory, .sourceCode, .swiftSource, .propertyList, .vCard, .calendarEvent,
]
check(Set(names).count == names.count, "Apple's static names are distinct types")

// MARK: - Transferable

let profile = Profile(
    id: UUID(), name: "Grace Hopper", bio: "Computer scientist", funFacts: ["Found a moth in a relay"],
    video: nil, portrait: nil)
try await pasteboard.write(profile)
check(try await pasteboard.read(Profile.self) == profile, "a Profile reads back whole")
check(try await pasteboard.read(String.self) == profile.name, "a Profile pastes as its name")
check(try pasteboard.types.first == .profile, "the profile's own type comes first")

let fact = FunFact(text: "Wrote the first compiler")
try await pasteboard.write(fact)
check(try await pasteboard.read(FunFact.self) == fact, "a FunFact reads back")
try await pasteboard.write("Invented COBOL")
check(try await pasteboard.read(FunFact.self) == FunFact(text: "Invented COBOL"), "a FunFact imports from text")

let archive = ProfilesArchive(rows: [["Ada Lovelace", "Mathematician"], ["Grace Hopper", "Rear admiral"]])
try await pasteboard.write(archive)
check(try await pasteboard.read(ProfilesArchive.self)?.rows == archive.rows, "a ProfilesArchive reads back")
check(try pasteboard.types == [.commaSeparatedText, .utf8PlainText], "an archive is CSV, then text")
try await pasteboard.write(ProfilesArchive(rows: []))
check(try pasteboard.types == [.commaSeparatedText], "the exporting condition skips text for an empty archive")

let movie = FileManager.default.temporaryDirectory.appendingPathComponent("\(UUID().uuidString).mp4")
let frames = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0) })
try frames.write(to: movie)
try await pasteboard.write(Video(file: movie))
if let pasted = try await pasteboard.read(Video.self) {
    check(pasted.file != movie, "the importer keeps its own copy")
    check(try Data(contentsOf: pasted.file) == frames, "a Video reads back byte for byte")
    try FileManager.default.removeItem(at: pasted.file)
} else {
    check(false, "a Video reads back")
}
try FileManager.default.removeItem(at: movie)

let sent = SentTransferredFile(movie)
check(sent.file == movie && !sent.allowAccessingOriginalFile, "SentTransferredFile defaults to sending a copy")

if failures.isEmpty {
    print("Apple-style Transferable code: all checks passed")
} else {
    for failure in failures { print("FAILED: \(failure)") }
    exit(1)
}
