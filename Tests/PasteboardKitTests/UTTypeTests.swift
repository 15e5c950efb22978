import PasteboardKit
import Testing

/// Apple's `UTType` spellings: the alias, the one-supertype initialisers, the static names and their tags.
@Suite struct UTTypeTests {
    @Test func utTypeIsContentType() {
        let type: UTType = ContentType.png

        #expect(type == UTType.png)
        #expect(type.identifier == "public.png")
    }

    @Test(arguments: [
        (UTType.item, "public.item"), (.content, "public.content"), (.data, "public.data"), (.text, "public.text"),
        (.plainText, "public.plain-text"), (.utf8PlainText, "public.utf8-plain-text"), (.json, "public.json"),
        (.commaSeparatedText, "public.comma-separated-values-text"), (.image, "public.image"), (.png, "public.png"),
        (.jpeg, "public.jpeg"), (.url, "public.url"), (.fileURL, "public.file-url"), (.pdf, "com.adobe.pdf"),
        (.mpeg4Movie, "public.mpeg-4"), (.quickTimeMovie, "com.apple.quicktime-movie"), (.bz2, "public.bzip2-archive"),
        (.symbolicLink, "public.symlink"), (.exe, "com.microsoft.windows-executable"),
        (.propertyList, "com.apple.property-list"), (.xmlPropertyList, "com.apple.xml-property-list"),
        (.utf16ExternalPlainText, "public.utf16-external-plain-text"), (.objectiveCSource, "public.objective-c-source"),
        (.cPlusPlusHeader, "public.c-plus-plus-header"), (.perlScript, "public.perl-script"),
        (.mpeg4Audio, "public.mpeg-4-audio"), (.m3uPlaylist, "public.m3u-playlist"),
        (.rawImage, "public.camera-raw-image"),
        (.epub, "org.idpf.epub-container"), (.x509Certificate, "public.x509-certificate"), (.geoJSON, "public.geojson"),
    ])
    func staticNamesHaveApplesIdentifiers(type: UTType, identifier: String) {
        #expect(type.identifier == identifier)
        #expect(type.isDeclared)
    }

    @Test(arguments: [
        (UTType.xmlPropertyList, UTType.xml), (.xmlPropertyList, .propertyList), (.epub, .zip), (.epub, .archive),
        (.dng, .rawImage), (.dng, .image), (.geoJSON, .json), (.geoJSON, .text), (.perlScript, .script),
        (.cPlusPlusHeader, .sourceCode), (.symbolicLink, .resolvable), (.unixExecutable, .executable),
        (.exe, .data), (.m3uPlaylist, .text), (.m3uPlaylist, .playlist), (.mpeg2TransportStream, .movie),
        (.mpeg4Audio, .audio), (.utf8TabSeparatedText, .delimitedText), (.volume, .directory), (.log, .text),
    ])
    func addedNamesConformAsApplesDo(type: UTType, supertype: UTType) {
        #expect(type.conforms(to: supertype))
        #expect(!supertype.conforms(to: type))
    }

    @Test func addedNamesHaveTheirTags() {
        #expect(UTType.mpeg4Audio.preferredMIMEType == "audio/mp4")
        #expect(UTType(mimeType: "application/epub+zip") == .epub)
        #expect(UTType(filenameExtension: "m3u8") == .m3uPlaylist)
        #expect(UTType(filenameExtension: "plist") == .propertyList)
        #expect(UTType.exe.preferredFilenameExtension == "exe")
        #expect(UTType.bz2.preferredFilenameExtension == "bz2")
    }

    // MARK: - Declaring

    @Test func exportedAsConformingToOneType() {
        let type = UTType(exportedAs: "com.example.tests.apple.profile", conformingTo: .json)

        #expect(type.identifier == "com.example.tests.apple.profile")
        #expect(type.isDeclared)
        #expect(type.conforms(to: .json))
        #expect(type.conforms(to: .text))
        #expect(type.supertypes.contains(.json))
    }

    @Test func exportedAsAloneConformsToData() {
        let type = UTType(exportedAs: "com.example.tests.apple.blob")

        #expect(type.conforms(to: .data))
        #expect(!type.conforms(to: .text))
    }

    @Test func importedAsConformingToOneType() {
        let type = UTType(importedAs: "com.example.tests.apple.sketch", conformingTo: .image)

        #expect(type.isDeclared)
        #expect(type.conforms(to: .image))
        #expect(UTType(importedAs: "com.example.tests.apple.other").conforms(to: .data))
    }

    @Test func exportedDeclarationWinsOverAnImportedOneWithOneSupertype() {
        let exported = UTType(exportedAs: "com.example.tests.apple.owned", conformingTo: .json)
        _ = UTType(importedAs: "com.example.tests.apple.owned", conformingTo: .png)

        #expect(exported.conforms(to: .json))
        #expect(!exported.conforms(to: .image))
    }

    // MARK: - Tags and conformance

    @Test func tagInitialisersWithASupertype() {
        #expect(UTType(filenameExtension: "png", conformingTo: .image) == .png)
        #expect(UTType(filenameExtension: "png", conformingTo: .text) == nil)
        #expect(UTType(filenameExtension: "not-an-extension-anyone-claims", conformingTo: .data) == nil)
        #expect(UTType(mimeType: "image/png", conformingTo: .image) == .png)
        #expect(UTType(mimeType: "image/png", conformingTo: .text) == nil)
        #expect(UTType(mimeType: "text/x-made-up", conformingTo: .text)?.isDynamic == true)
    }

    @Test func subtypeAndSupertypeExcludeTheTypeItself() {
        #expect(UTType.png.isSubtype(of: .image))
        #expect(UTType.image.isSupertype(of: .png))
        #expect(!UTType.png.isSubtype(of: .png))
        #expect(!UTType.png.isSupertype(of: .png))
        #expect(!UTType.image.isSubtype(of: .png))
        #expect(UTType.png.conforms(to: .png))
    }

    @Test func publicTypes() {
        #expect(UTType.png.isPublic)
        #expect(!UTType.pdf.isPublic)
        #expect(!UTType(exportedAs: "com.example.tests.apple.private").isPublic)
    }
}
