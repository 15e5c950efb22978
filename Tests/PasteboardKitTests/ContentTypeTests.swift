import Foundation
import Testing

@testable import PasteboardModel

@Suite struct ContentTypeTests {
    // MARK: - Built-in table

    @Test func declaresAtLeastFortyFiveBuiltInTypes() {
        #expect(ContentType.builtInTypes.count >= 45)
        #expect(Set(ContentType.builtInTypes).count == ContentType.builtInTypes.count)
    }

    @Test(arguments: [
        (ContentType.item, "public.item"), (.content, "public.content"), (.data, "public.data"),
        (.text, "public.text"), (.plainText, "public.plain-text"), (.utf8PlainText, "public.utf8-plain-text"),
        (.utf16PlainText, "public.utf16-plain-text"), (.html, "public.html"), (.rtf, "public.rtf"),
        (.xml, "public.xml"), (.json, "public.json"), (.yaml, "public.yaml"),
        (.commaSeparatedText, "public.comma-separated-values-text"),
        (.tabSeparatedText, "public.tab-separated-values-text"), (.markdown, "net.daringfireball.markdown"),
        (.sourceCode, "public.source-code"), (.swiftSource, "public.swift-source"),
        (.shellScript, "public.shell-script"), (.pythonScript, "public.python-script"),
        (.javaScript, "com.netscape.javascript-source"), (.cSource, "public.c-source"), (.url, "public.url"),
        (.fileURL, "public.file-url"), (.uriList, "org.freedesktop.uri-list"),
        (.gnomeCopiedFiles, "org.gnome.copied-files"), (.image, "public.image"), (.png, "public.png"),
        (.jpeg, "public.jpeg"), (.gif, "com.compuserve.gif"), (.webP, "org.webmproject.webp"),
        (.bmp, "com.microsoft.bmp"), (.tiff, "public.tiff"), (.svg, "public.svg-image"),
        (.ico, "com.microsoft.ico"), (.heic, "public.heic"), (.avif, "public.avif"), (.pdf, "com.adobe.pdf"),
        (.postScript, "com.adobe.postscript"), (.audio, "public.audio"), (.mp3, "public.mp3"),
        (.wav, "com.microsoft.waveform-audio"), (.movie, "public.movie"), (.video, "public.video"),
        (.mpeg4Movie, "public.mpeg-4"), (.quickTimeMovie, "com.apple.quicktime-movie"),
        (.archive, "public.archive"), (.zip, "public.zip-archive"), (.gzip, "org.gnu.gnu-zip-archive"),
        (.tarArchive, "public.tar-archive"), (.vCard, "public.vcard"), (.calendarEvent, "public.calendar-event"),
        (.emailMessage, "public.email-message"), (.font, "public.font"), (.folder, "public.folder"),
        (.directory, "public.directory"),
    ])
    func staticMemberHasIdentifierAndIsDeclared(type: ContentType, identifier: String) {
        #expect(type.identifier == identifier)
        #expect(type.description == identifier)
        #expect(type.isDeclared)
        #expect(!type.isDynamic)
        #expect(ContentType.declaredTypes.contains(type))
    }

    @Test(arguments: ContentType.builtInTypes)
    func builtInTypeRoundTripsItsTags(type: ContentType) {
        #expect(ContentType(type.identifier) == type)
        #expect(ContentType.resolve(type.identifier) == type)
        #expect(type.localizedDescription != type.identifier)
        #expect(type.conforms(to: .item))
        #expect(type.conforms(to: type))
        #expect(!type.supertypes.contains(type))
        #expect(type.preferredMIMEType == type.mimeTypes.first)
        for mimeType in type.mimeTypes {
            #expect(ContentType(mimeType: mimeType) == type, "MIME \(mimeType)")
            #expect(ContentType(mimeType: mimeType.uppercased()) == type, "MIME \(mimeType) uppercased")
        }
        #expect(type.preferredFilenameExtension == type.filenameExtensions.first)
        for filenameExtension in type.filenameExtensions {
            #expect(ContentType(filenameExtension: filenameExtension) == type, "extension \(filenameExtension)")
            #expect(ContentType(filenameExtension: "." + filenameExtension.uppercased()) == type)
        }
    }

    @Test func noMIMETypeOrExtensionBelongsToTwoBuiltInTypes() {
        let mimeTypes = ContentType.builtInTypes.flatMap { $0.mimeTypes.map { $0.lowercased() } }
        let extensions = ContentType.builtInTypes.flatMap(\.filenameExtensions)
        #expect(Set(mimeTypes).count == mimeTypes.count)
        #expect(Set(extensions).count == extensions.count)
    }

    @Test func declaredTypesAreSortedByIdentifier() {
        let identifiers = ContentType.declaredTypes.map(\.identifier)
        #expect(identifiers == identifiers.sorted())
        #expect(identifiers.count >= ContentType.builtInTypes.count)
    }

    // MARK: - Conformance

    @Test(arguments: [
        (ContentType.png, ContentType.image, true), (.png, .data, true), (.png, .item, true), (.png, .text, false),
        (.png, .content, true), (.utf8PlainText, .plainText, true), (.utf8PlainText, .text, true),
        (.utf8PlainText, .data, true), (.utf8PlainText, .item, true), (.utf8PlainText, .utf16PlainText, false),
        (.plainText, .utf8PlainText, false), (.html, .text, true), (.html, .plainText, false),
        (.json, .text, true), (.yaml, .text, true), (.xml, .text, true), (.fileURL, .url, true),
        (.url, .fileURL, false), (.url, .text, false), (.uriList, .text, true), (.gnomeCopiedFiles, .text, true),
        (.svg, .image, true), (.svg, .xml, true), (.svg, .text, true), (.xhtml, .html, true),
        (.commaSeparatedText, .delimitedText, true), (.markdown, .plainText, true),
        (.swiftSource, .sourceCode, true), (.shellScript, .script, true), (.pythonScript, .plainText, true),
        (.javaScript, .sourceCode, true), (.heic, .heif, true), (.heic, .image, true), (.pdf, .data, true),
        (.pdf, .image, false), (.mp3, .audio, true), (.mp3, .audiovisualContent, true), (.mp3, .movie, false),
        (.video, .movie, true), (.mpeg4Movie, .movie, true), (.zip, .archive, true), (.gzip, .data, true),
        (.folder, .directory, true), (.folder, .data, false), (.item, .data, false), (.data, .item, true),
        (.text, .plainText, false), (.image, .png, false), (.vCard, .text, true), (.calendarEvent, .text, true),
    ])
    func conformance(type: ContentType, other: ContentType, expected: Bool) {
        #expect(type.conforms(to: other) == expected)
        #expect(other.isSupertype(of: type) == expected)
    }

    @Test func supertypesAreTransitiveAndExcludeSelf() {
        #expect(ContentType.utf8PlainText.supertypes == [.plainText, .text, .data, .content, .item])
        #expect(ContentType.png.supertypes == [.image, .data, .content, .item])
        #expect(ContentType.item.supertypes.isEmpty)
    }

    @Test func textAndImageShortcuts() {
        #expect(ContentType.html.isText)
        #expect(!ContentType.html.isImage)
        #expect(ContentType.jpeg.isImage)
        #expect(!ContentType.jpeg.isText)
        #expect(ContentType.svg.isText && ContentType.svg.isImage)
        #expect(!ContentType.data.isText)
    }

    @Test func undeclaredTypeConformsToDataAndItemOnly() {
        let type = ContentType("com.example.never-declared")
        #expect(!type.isDeclared)
        #expect(!type.isDynamic)
        #expect(type.supertypes == [.data, .item])
        #expect(type.conforms(to: .data))
        #expect(!type.isText)
        #expect(type.mimeTypes.isEmpty)
        #expect(type.preferredFilenameExtension == nil)
        #expect(type.localizedDescription == "com.example.never-declared")
    }

    // MARK: - MIME types

    @Test(arguments: [
        "text/plain;charset=utf-8", "text/plain; charset=utf-8", "TEXT/PLAIN;CHARSET=UTF-8", "text/plain;charset=UTF8",
        "text/plain ; charset = \"utf-8\"", "text/plain;format=flowed;charset=utf-8", " text/plain;charset=utf-8 ",
    ])
    func utf8PlainTextMIMEVariants(mimeType: String) {
        #expect(ContentType(mimeType: mimeType) == .utf8PlainText)
    }

    @Test(arguments: [
        ("text/plain", ContentType.plainText), ("text/plain;charset=iso-8859-1", .plainText),
        ("text/plain;format=flowed", .plainText), ("text/plain;charset=utf-16", .utf16PlainText),
        ("text/html;charset=utf-8", .html), ("image/png", .png), ("IMAGE/PNG", .png), ("image/jpg", .jpeg),
        ("image/jpeg", .jpeg), ("text/uri-list", .uriList), ("x-special/gnome-copied-files", .gnomeCopiedFiles),
        ("application/octet-stream", .data), ("image/svg+xml", .svg), ("text/csv", .commaSeparatedText),
        ("inode/directory", .folder),
    ])
    func mimeTypeLookup(mimeType: String, expected: ContentType) {
        #expect(ContentType(mimeType: mimeType) == expected)
    }

    @Test(arguments: ["", "text", "/plain", "text/", "text/plain/extra", "???", "text/pl ain", "image/*", "*/*", ";"])
    func malformedMIMETypeIsNil(mimeType: String) {
        #expect(ContentType(mimeType: mimeType) == nil)
    }

    @Test func preferredMIMETypes() {
        #expect(ContentType.png.preferredMIMEType == "image/png")
        #expect(ContentType.jpeg.preferredMIMEType == "image/jpeg")
        #expect(ContentType.utf8PlainText.preferredMIMEType == "text/plain;charset=utf-8")
        #expect(ContentType.plainText.preferredMIMEType == "text/plain")
        #expect(ContentType.text.preferredMIMEType == nil)
    }

    @Test func urlHasNoMIMETypeAndURIListOwnsTextURIList() {
        #expect(ContentType.url.preferredMIMEType == nil)
        #expect(ContentType.fileURL.mimeTypes.isEmpty)
        #expect(ContentType.uriList.preferredMIMEType == "text/uri-list")
        #expect(ContentType(mimeType: "text/uri-list") == .uriList)
    }

    @Test func unknownMIMETypeGivesDynamicType() throws {
        let type = try #require(ContentType(mimeType: "Application/X-Foo; version=2"))
        #expect(type.identifier == "dyn.mime.application/x-foo")
        #expect(type.isDynamic)
        #expect(!type.isDeclared)
        #expect(type.preferredMIMEType == "application/x-foo")
        #expect(type.mimeTypes == ["application/x-foo"])
        #expect(type.conforms(to: .data))
        #expect(type.conforms(to: .item))
        #expect(!type.isText)
        #expect(ContentType("dyn.mime.application/x-foo") == type)
        #expect(ContentType(mimeType: type.preferredMIMEType!) == type)
    }

    @Test func dynamicTextMIMETypeConformsToText() throws {
        let type = try #require(ContentType(mimeType: "text/x-unknown-language"))
        #expect(type.isText)
        #expect(type.conforms(to: .data))
        #expect(!type.conforms(to: .plainText))
        #expect(type.supertypes.isSuperset(of: [.text, .data, .item]))
    }

    @Test func dynamicStructuredSuffixConformsToJSONOrXML() throws {
        let json = try #require(ContentType(mimeType: "application/vnd.example+json"))
        let xml = try #require(ContentType(mimeType: "application/vnd.example+xml"))
        #expect(json.conforms(to: .json) && json.isText)
        #expect(xml.conforms(to: .xml) && xml.isText)
    }

    @Test func dynamicIdentifierWithoutMIMETypeIsData() {
        let type = ContentType("dyn.ah62d4rv4ge80")
        #expect(type.isDynamic)
        #expect(type.preferredMIMEType == nil)
        #expect(type.supertypes == [.data, .item])
    }

    // MARK: - Filename extensions

    @Test(arguments: [
        ("JPG", ContentType.jpeg), ("jpeg", .jpeg), (".png", .png), ("PNG", .png), ("txt", .plainText),
        ("htm", .html), ("md", .markdown), ("yml", .yaml), ("ics", .calendarEvent), ("svg", .svg), ("gz", .gzip),
        ("tif", .tiff), ("mov", .quickTimeMovie),
    ])
    func filenameExtensionLookup(filenameExtension: String, expected: ContentType) {
        #expect(ContentType(filenameExtension: filenameExtension) == expected)
    }

    @Test(arguments: ["", ".", "..png", "tar.gz", "unknownext", "a/b"])
    func unknownFilenameExtensionIsNil(filenameExtension: String) {
        #expect(ContentType(filenameExtension: filenameExtension) == nil)
    }

    @Test func preferredFilenameExtensions() {
        #expect(ContentType.jpeg.preferredFilenameExtension == "jpg")
        #expect(ContentType.html.preferredFilenameExtension == "html")
        #expect(ContentType.plainText.preferredFilenameExtension == "txt")
        #expect(ContentType.utf8PlainText.preferredFilenameExtension == nil)
        #expect(ContentType.tiff.filenameExtensions == ["tiff", "tif"])
    }

    @Test func localizedDescriptions() {
        #expect(ContentType.png.localizedDescription == "PNG image")
        #expect(ContentType.utf8PlainText.localizedDescription == "Plain text (UTF-8)")
    }

    // MARK: - Resolving user input

    @Test(arguments: [
        ("text", ContentType.text), ("plain", .plainText), ("utf8", .utf8PlainText), ("html", .html), ("rtf", .rtf),
        ("url", .url), ("file", .fileURL), ("uri-list", .uriList), ("json", .json), ("xml", .xml),
        ("csv", .commaSeparatedText), ("image", .image), ("png", .png), ("jpeg", .jpeg), ("jpg", .jpeg),
        ("gif", .gif), ("webp", .webP), ("bmp", .bmp), ("tiff", .tiff), ("svg", .svg), ("pdf", .pdf),
        ("data", .data), ("UTF8", .utf8PlainText), (" png ", .png), (".png", .png), (".JPG", .jpeg),
        ("md", .markdown), ("public.png", .png), ("PUBLIC.PNG", .png), ("image/png", .png),
        ("text/plain;charset=utf-8", .utf8PlainText), ("com.example.unknown", ContentType("com.example.unknown")),
        ("text/x-nothing", ContentType("dyn.mime.text/x-nothing")),
        ("dyn.mime.text/x-nothing", ContentType("dyn.mime.text/x-nothing")),
    ])
    func resolveUserInput(input: String, expected: ContentType) {
        #expect(ContentType.resolve(input) == expected)
    }

    @Test(arguments: ["", "   ", "???", "nonsense", ".foo", "a..b", "com.example.", "not/a/type", "image/*", "a b.c"])
    func resolveRejectsGarbage(input: String) {
        #expect(ContentType.resolve(input) == nil)
    }

    // MARK: - Codable and hashing

    @Test func encodesAsPlainJSONString() throws {
        let encoded = try JSONEncoder().encode(ContentType.png)
        #expect(String(decoding: encoded, as: UTF8.self) == "\"public.png\"")
        let decoded = try JSONDecoder().decode([ContentType].self, from: Data(#"["public.png","com.x.y"]"#.utf8))
        #expect(decoded == [.png, ContentType("com.x.y")])
    }

    @Test func roundTripsInsideAStruct() throws {
        struct Record: Codable, Equatable {
            var type: ContentType
        }
        let record = Record(type: .utf8PlainText)
        let encoded = try JSONEncoder().encode(record)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"type":"public.utf8-plain-text"}"#)
        #expect(try JSONDecoder().decode(Record.self, from: encoded) == record)
    }

    @Test func decodingEmptyIdentifierFails() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ContentType.self, from: Data(#""""#.utf8))
        }
    }

    @Test func worksAsDictionaryKey() {
        var sizes: [ContentType: Int] = [.png: 1, .utf8PlainText: 2]
        sizes[ContentType("public.png")] = 3
        #expect(sizes.count == 2)
        #expect(sizes[.png] == 3)
        #expect(ContentType("public.png").hashValue == ContentType.png.hashValue)
    }
}

// MARK: - Custom declarations

/// Custom types are process-wide, so every test declares identifiers of its own.
@Suite struct ContentTypeDeclarationTests {
    @Test func exportedTypeConformsThroughItsSupertypes() {
        let base = ContentType(exportedAs: "com.example.tests.base", conformingTo: [.json])
        let derived = ContentType(
            exportedAs: "com.example.tests.derived", conformingTo: [base, .image],
            mimeTypes: ["application/vnd.example.derived"], filenameExtensions: [".Derived"],
            description: "Derived thing")
        #expect(derived.isDeclared)
        #expect(derived.conforms(to: base))
        #expect(derived.conforms(to: .json))
        #expect(derived.isText)
        #expect(derived.isImage)
        #expect(derived.supertypes == [base, .json, .text, .image, .data, .content, .item])
        #expect(base.isSupertype(of: derived))
        #expect(!base.conforms(to: derived))
        #expect(derived.localizedDescription == "Derived thing")
        #expect(derived.preferredMIMEType == "application/vnd.example.derived")
        #expect(derived.preferredFilenameExtension == "derived")
        #expect(ContentType(mimeType: "application/VND.example.derived") == derived)
        #expect(ContentType(filenameExtension: "DERIVED") == derived)
        #expect(ContentType.resolve("com.example.tests.derived") == derived)
        #expect(ContentType.resolve("derived") == derived)
        #expect(ContentType.declaredTypes.contains(derived))
    }

    @Test func defaultDeclarationConformsToData() {
        let type = ContentType(exportedAs: "com.example.tests.defaults")
        #expect(type.supertypes == [.data, .item])
        #expect(type.localizedDescription == "com.example.tests.defaults")
        #expect(type.mimeTypes.isEmpty)
    }

    @Test func declarationWithoutSupertypesConformsToItemOnly() {
        let type = ContentType(exportedAs: "com.example.tests.bare", conformingTo: [])
        #expect(type.supertypes == [.item])
        #expect(!type.conforms(to: .data))
    }

    @Test func redeclaringReplacesTheDeclaration() {
        _ = ContentType(
            exportedAs: "com.example.tests.replaced", conformingTo: [.text], mimeTypes: ["application/x-replaced-old"])
        let type = ContentType(
            exportedAs: "com.example.tests.replaced", conformingTo: [.image], mimeTypes: ["application/x-replaced-new"])
        #expect(type.isImage)
        #expect(!type.isText)
        #expect(ContentType(mimeType: "application/x-replaced-new") == type)
        #expect(ContentType(mimeType: "application/x-replaced-old")?.isDynamic == true)
        #expect(ContentType.declaredTypes.filter { $0 == type }.count == 1)
    }

    @Test func redeclaringIdenticallyIsIdempotent() {
        let first = ContentType(exportedAs: "com.example.tests.same", mimeTypes: ["application/x-same"])
        let second = ContentType(exportedAs: "com.example.tests.same", mimeTypes: ["application/x-same"])
        #expect(first == second)
        #expect(ContentType(mimeType: "application/x-same") == first)
    }

    @Test func importedDeclarationDoesNotOverrideExportedOne() {
        let exported = ContentType(exportedAs: "com.example.tests.owned", conformingTo: [.json])
        _ = ContentType(importedAs: "com.example.tests.owned", conformingTo: [.png])
        #expect(exported.conforms(to: .json))
        #expect(!exported.isImage)
    }

    @Test func exportedDeclarationOverridesImportedOne() {
        let imported = ContentType(importedAs: "com.example.tests.borrowed", conformingTo: [.png])
        #expect(imported.isImage)
        _ = ContentType(exportedAs: "com.example.tests.borrowed", conformingTo: [.json])
        #expect(imported.isText)
        #expect(!imported.isImage)
    }

    @Test func builtInTypesCannotBeRedeclared() {
        let png = ContentType(exportedAs: "public.png", conformingTo: [.text], mimeTypes: ["text/x-not-png"])
        #expect(png == .png)
        #expect(!png.isText)
        #expect(png.preferredMIMEType == "image/png")
        #expect(ContentType(mimeType: "text/x-not-png")?.isDynamic == true)
    }

    @Test func builtInTagsWinOverCustomOnes() {
        let type = ContentType(
            exportedAs: "com.example.tests.greedy", mimeTypes: ["image/png", "application/x-greedy"],
            filenameExtensions: ["png"])
        #expect(ContentType(mimeType: "image/png") == .png)
        #expect(ContentType(filenameExtension: "png") == .png)
        #expect(ContentType(mimeType: "application/x-greedy") == type)
    }

    @Test func conformanceCycleTerminates() {
        let first = ContentType(
            exportedAs: "com.example.tests.cycle-a", conformingTo: [ContentType("com.example.tests.cycle-b")])
        let second = ContentType(exportedAs: "com.example.tests.cycle-b", conformingTo: [first])
        #expect(first.conforms(to: second))
        #expect(second.conforms(to: first))
        #expect(first.supertypes == [second, .item])
    }

    @Test func concurrentDeclarationsAllRegister() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    _ = ContentType(
                        exportedAs: "com.example.tests.concurrent-\(index)", conformingTo: [.text],
                        mimeTypes: ["application/x-concurrent-\(index)"])
                    _ = ContentType.declaredTypes
                }
            }
        }
        for index in 0..<200 {
            let type = ContentType("com.example.tests.concurrent-\(index)")
            #expect(type.isText)
            #expect(ContentType(mimeType: "application/x-concurrent-\(index)") == type)
        }
    }
}

// MARK: - X11 targets

@Suite struct ContentTypeX11Tests {
    @Test(arguments: [
        ("UTF8_STRING", ContentType.utf8PlainText), ("text/plain;charset=utf-8", .utf8PlainText),
        ("text/plain;charset=UTF-8", .utf8PlainText), ("text/plain", .plainText), ("STRING", .plainText),
        ("TEXT", .plainText), ("COMPOUND_TEXT", .plainText), ("image/png", .png), ("text/html", .html),
        ("text/uri-list", .uriList), ("x-special/gnome-copied-files", .gnomeCopiedFiles),
        ("application/x-whatever", ContentType("dyn.mime.application/x-whatever")),
    ])
    func targetMapsToType(target: String, expected: ContentType) {
        #expect(ContentType(x11Target: target) == expected)
    }

    @Test(arguments: [
        "TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "DELETE", "INCR", "LENGTH", "ATOM_PAIR", "_NETSCAPE_URL",
        "", "utf8_string",
    ])
    func metaTargetsAreNil(target: String) {
        #expect(ContentType(x11Target: target) == nil)
    }

    @Test func utf8TextAdvertisesTheUsualTextTargets() {
        #expect(
            ContentType.utf8PlainText.x11Targets == [
                "UTF8_STRING", "text/plain;charset=utf-8", "text/plain", "STRING", "TEXT", "COMPOUND_TEXT",
            ])
    }

    @Test(arguments: [
        (ContentType.png, ["image/png"]), (.jpeg, ["image/jpeg", "image/jpg", "image/pjpeg"]),
        (.html, ["text/html"]), (.uriList, ["text/uri-list"]), (.gnomeCopiedFiles, ["x-special/gnome-copied-files"]),
        (.plainText, ["text/plain"]), (.url, []), (.image, []),
        (ContentType("dyn.mime.application/x-foo"), ["application/x-foo"]),
    ])
    func otherTypesAdvertiseTheirMIMETypes(type: ContentType, targets: [String]) {
        #expect(type.x11Targets == targets)
    }

    @Test(arguments: ContentType.builtInTypes)
    func advertisedTargetsMapBackToTheType(type: ContentType) {
        for target in type.x11Targets where !["STRING", "TEXT", "COMPOUND_TEXT", "text/plain"].contains(target) {
            #expect(ContentType(x11Target: target) == type, "target \(target)")
        }
    }

    // MARK: - Names offered by applications, kept verbatim

    static let libreOfficeEmbedSource =
        #"application/x-openoffice-embed-source-xml;windows_formatname="Star Embed Source (XML)""#

    /// Offered name → the identifier it is kept as. A name its canonical type is offered under gives that type;
    /// any other MIME name its own dynamic type, spelled as offered.
    @Test(arguments: [
        ("UTF8_STRING", "public.utf8-plain-text"), ("text/plain;charset=utf-8", "public.utf8-plain-text"),
        ("text/plain", "public.plain-text"), ("text/plain;charset=utf-16", "public.utf16-plain-text"),
        ("image/png", "public.png"), ("image/jpg", "public.jpeg"), ("text/html", "public.html"),
        ("text/uri-list", "org.freedesktop.uri-list"), ("x-special/gnome-copied-files", "org.gnome.copied-files"),
        ("text/x-moz-url", "org.mozilla.url"), ("application/x-foo", "dyn.mime.application/x-foo"),
        ("chromium/x-web-custom-data", "dyn.mime.chromium/x-web-custom-data"),
        ("STRING", "public.plain-text"), ("COMPOUND_TEXT", "public.plain-text"),
        ("text/plain;charset=UTF-8", "dyn.mime.text/plain;charset=UTF-8"),
        ("text/plain; charset=utf-8", "dyn.mime.text/plain; charset=utf-8"),
        ("text/plain;charset=iso-8859-1", "dyn.mime.text/plain;charset=iso-8859-1"),
        ("text/html;charset=utf-8", "dyn.mime.text/html;charset=utf-8"),
        ("text/_moz_htmlcontext", "dyn.mime.text/_moz_htmlcontext"),
        ("text/_moz_htmlinfo", "dyn.mime.text/_moz_htmlinfo"), ("Image/PNG", "dyn.mime.Image/PNG"),
        ("application/X-Foo", "dyn.mime.application/X-Foo"), (libreOfficeEmbedSource, "dyn.mime." + libreOfficeEmbedSource),
        // Never verbatim: surrounding whitespace or a control character; the canonical type then, as before.
        (" text/html ", "public.html"), ("application/x-foo;a=\"b\tc\"", "dyn.mime.application/x-foo"),
    ])
    func offeredNameIsKeptAs(name: String, identifier: String) throws {
        let type = try #require(ContentType(offeredName: name))
        #expect(type.identifier == identifier)
        if type.isDynamic && name.contains(";") && identifier.hasSuffix(name) {
            #expect(type.preferredMIMEType == name, "the name is served back as offered")
            #expect(type.mimeTypes == [name])
            #expect(type.x11Targets == [name])
        }
    }

    @Test(arguments: ["TARGETS", "TIMESTAMP", "MULTIPLE", "SAVE_TARGETS", "", "text/", "image/*"])
    func metaNamesAreNotKept(name: String) {
        #expect(ContentType(offeredName: name) == nil)
    }

    @Test func aVerbatimTextTypeIsTextButNotThePlainText() {
        let utf16 = ContentType("dyn.mime.text/plain;charset=UTF-16")
        #expect(utf16.isText && !utf16.conforms(to: .plainText) && !utf16.conforms(to: .utf8PlainText))
        #expect(utf16.canonicalType == .utf16PlainText)
        let context = ContentType("dyn.mime.text/_moz_htmlcontext")
        #expect(context.isText && !context.conforms(to: .plainText))
        #expect(context.canonicalType == context, "no declared type means it")
        let embed = ContentType("dyn.mime." + Self.libreOfficeEmbedSource)
        #expect(embed.preferredMIMEType == Self.libreOfficeEmbedSource)
        #expect(!embed.isText && embed.conforms(to: .data))
        #expect(embed.canonicalType == ContentType("dyn.mime.application/x-openoffice-embed-source-xml"))
        let json = ContentType("dyn.mime.application/vnd.example+json;v=2")
        #expect(json.conforms(to: .json), "a structured suffix counts with parameters too")
        #expect(ContentType.png.canonicalType == .png)
    }

    /// Identifiers stored before names were kept verbatim read back as they did.
    @Test func storedDynamicIdentifiersReadBackAsBefore() {
        let old = ContentType("dyn.mime.application/x-foo")
        #expect(old.preferredMIMEType == "application/x-foo")
        #expect(old.canonicalType == old)
        #expect(ContentType(offeredName: "application/x-foo") == old)
        #expect(ContentType.resolve("dyn.mime.application/x-foo") == old)
    }

    /// A verbatim identifier reads back wherever identifiers are parsed: `resolve` (pb import, --type) and JSON.
    @Test(arguments: [
        "dyn.mime.text/plain;charset=UTF-16", "dyn.mime.text/_moz_htmlcontext",
        "dyn.mime." + libreOfficeEmbedSource,
        #"dyn.mime.application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";typename="LibreOffice 7.4 Text Document""#,
    ])
    func verbatimIdentifierRoundTrips(identifier: String) throws {
        let type = ContentType(identifier)
        #expect(ContentType.resolve(identifier) == type)
        let decoded = try JSONDecoder().decode(ContentType.self, from: JSONEncoder().encode(type))
        #expect(decoded == type)
        #expect(ContentType(offeredName: try #require(type.preferredMIMEType)) == type)
    }

    @Test func underscoreNamedMIMETypesAreMIMETypes() {
        #expect(ContentType(mimeType: "text/_moz_htmlcontext")?.identifier == "dyn.mime.text/_moz_htmlcontext")
        #expect(ContentType.resolve("text/_moz_htmlinfo") == ContentType("dyn.mime.text/_moz_htmlinfo"))
    }
}
