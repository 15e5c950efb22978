// The rest of the names Apple's `UTType` declares that mean something on Linux, with the same identifiers,
// so that code written for Apple's platforms finds them. The table at the end joins the built-in one.

// MARK: - File system and programs

extension ContentType {
    /// Anything that can be resolved to another item, such as a symbolic link (`public.resolvable`).
    public static let resolvable = ContentType("public.resolvable")
    /// A symbolic link (`public.symlink`).
    public static let symbolicLink = ContentType("public.symlink")
    /// A mounted volume (`public.volume`).
    public static let volume = ContentType("public.volume")
    /// A disk image (`public.disk-image`).
    public static let diskImage = ContentType("public.disk-image")
    /// A program of any kind (`public.executable`).
    public static let executable = ContentType("public.executable")
    /// A Unix program (`public.unix-executable`).
    public static let unixExecutable = ContentType("public.unix-executable")
    /// A Windows program (`com.microsoft.windows-executable`, `.exe`).
    public static let exe = ContentType("com.microsoft.windows-executable")
}

// MARK: - Text

extension ContentType {
    /// UTF-16 text with a byte order mark (`public.utf16-external-plain-text`).
    public static let utf16ExternalPlainText = ContentType("public.utf16-external-plain-text")
    /// Tab-separated values encoded as UTF-8 (`public.utf8-tab-separated-values-text`).
    public static let utf8TabSeparatedText = ContentType("public.utf8-tab-separated-values-text")
    /// A property list of any encoding (`com.apple.property-list`, `.plist`).
    public static let propertyList = ContentType("com.apple.property-list")
    /// A property list in XML (`com.apple.xml-property-list`).
    public static let xmlPropertyList = ContentType("com.apple.xml-property-list")
    /// A property list in Apple's binary encoding (`com.apple.binary-property-list`).
    public static let binaryPropertyList = ContentType("com.apple.binary-property-list")
    /// Rich text with attachments, as a directory (`com.apple.rtfd`, `.rtfd`).
    public static let rtfd = ContentType("com.apple.rtfd")
    /// Rich text with attachments, as one file (`com.apple.flat-rtfd`).
    public static let flatRTFD = ContentType("com.apple.flat-rtfd")
    /// A web page with its resources (`com.apple.webarchive`, `application/x-webarchive`).
    public static let webArchive = ContentType("com.apple.webarchive")
    /// A log file (`public.log`, `.log`).
    public static let log = ContentType("public.log")
    /// GeoJSON (`public.geojson`, `application/geo+json`).
    public static let geoJSON = ContentType("public.geojson")
}

// MARK: - Source code

extension ContentType {
    /// Assembly source (`public.assembly-source`, `.s`).
    public static let assemblyLanguageSource = ContentType("public.assembly-source")
    /// Objective-C source (`public.objective-c-source`, `.m`).
    public static let objectiveCSource = ContentType("public.objective-c-source")
    /// Objective-C++ source (`public.objective-c-plus-plus-source`, `.mm`).
    public static let objectiveCPlusPlusSource = ContentType("public.objective-c-plus-plus-source")
    /// A C++ header (`public.c-plus-plus-header`, `.hpp`).
    public static let cPlusPlusHeader = ContentType("public.c-plus-plus-header")
    /// A makefile (`public.make-source`).
    public static let makefile = ContentType("public.make-source")
    /// A Perl script (`public.perl-script`, `text/x-perl`).
    public static let perlScript = ContentType("public.perl-script")
    /// A Ruby script (`public.ruby-script`, `text/x-ruby`).
    public static let rubyScript = ContentType("public.ruby-script")
    /// A PHP script (`public.php-script`, `text/x-php`).
    public static let phpScript = ContentType("public.php-script")
}

// MARK: - Images

extension ContentType {
    /// A macOS icon (`com.apple.icns`, `.icns`).
    public static let icns = ContentType("com.apple.icns")
    /// A camera's raw image of any format (`public.camera-raw-image`).
    public static let rawImage = ContentType("public.camera-raw-image")
    /// A Digital Negative raw image (`com.adobe.raw-image`, `.dng`).
    public static let dng = ContentType("com.adobe.raw-image")
    /// OpenEXR (`com.ilm.openexr-image`, `.exr`).
    public static let exr = ContentType("com.ilm.openexr-image")
    /// JPEG XL (`public.jpeg-xl`, `image/jxl`).
    public static let jpegxl = ContentType("public.jpeg-xl")
}

// MARK: - Audio and video

extension ContentType {
    /// MPEG-1 or MPEG-2 video (`public.mpeg`, `video/mpeg`).
    public static let mpeg = ContentType("public.mpeg")
    /// MPEG-2 video (`public.mpeg-2-video`, `.m2v`).
    public static let mpeg2Video = ContentType("public.mpeg-2-video")
    /// An MPEG-2 transport stream (`public.mpeg-2-transport-stream`, `video/mp2t`).
    public static let mpeg2TransportStream = ContentType("public.mpeg-2-transport-stream")
    /// MPEG-4 audio (`public.mpeg-4-audio`, `audio/mp4`, `.m4a`).
    public static let mpeg4Audio = ContentType("public.mpeg-4-audio")
    /// AVI movie (`public.avi`, `video/x-msvideo`).
    public static let avi = ContentType("public.avi")
    /// AIFF audio (`public.aiff-audio`, `audio/aiff`).
    public static let aiff = ContentType("public.aiff-audio")
    /// MIDI (`public.midi-audio`, `audio/midi`).
    public static let midi = ContentType("public.midi-audio")
    /// A playlist of any format (`public.playlist`).
    public static let playlist = ContentType("public.playlist")
    /// An M3U playlist (`public.m3u-playlist`, `audio/x-mpegurl`).
    public static let m3uPlaylist = ContentType("public.m3u-playlist")
}

// MARK: - Archives, documents, security

extension ContentType {
    /// Apple's name for `.bzip2` (`public.bzip2-archive`).
    public static let bz2 = bzip2
    /// A spreadsheet of any format (`public.spreadsheet`).
    public static let spreadsheet = ContentType("public.spreadsheet")
    /// A presentation of any format (`public.presentation`).
    public static let presentation = ContentType("public.presentation")
    /// A database of any format (`public.database`).
    public static let database = ContentType("public.database")
    /// An EPUB book (`org.idpf.epub-container`, `application/epub+zip`).
    public static let epub = ContentType("org.idpf.epub-container")
    /// A PKCS #12 key and certificate bundle (`com.rsa.pkcs-12`, `.p12`).
    public static let pkcs12 = ContentType("com.rsa.pkcs-12")
    /// An X.509 certificate (`public.x509-certificate`, `.cer`).
    public static let x509Certificate = ContentType("public.x509-certificate")
}

// MARK: - Declarations

extension ContentType {
    /// The declarations of the types above, parents before children; they follow `builtInDeclarations`'s
    /// core table, whose types they may name as parents.
    static let moreBuiltInDeclarations: [Declaration] = [
        .init(.resolvable, "Resolvable item", [.item]),
        .init(.symbolicLink, "Symbolic link", [.item, .resolvable]),
        .init(.volume, "Volume", [.folder]),
        .init(.diskImage, "Disk image", [.archive]),
        .init(.executable, "Program", [.item]),
        .init(.unixExecutable, "Unix program", [.data, .executable]),
        .init(
            .exe, "Windows program", [.data, .executable],
            mime: ["application/vnd.microsoft.portable-executable", "application/x-msdownload"], ext: ["exe"]),

        .init(.utf16ExternalPlainText, "Plain text (UTF-16 with byte order mark)", [.plainText]),
        .init(.utf8TabSeparatedText, "TSV document (UTF-8)", [.tabSeparatedText]),
        .init(.propertyList, "Property list", [.data], ext: ["plist"]),
        .init(.xmlPropertyList, "XML property list", [.xml, .propertyList]),
        .init(.binaryPropertyList, "Binary property list", [.propertyList]),
        .init(.rtfd, "Rich text document with attachments", [.directory, .compositeContent], ext: ["rtfd"]),
        .init(.flatRTFD, "Flat rich text document with attachments", [.data, .compositeContent]),
        .init(
            .webArchive, "Web archive", [.data, .compositeContent], mime: ["application/x-webarchive"],
            ext: ["webarchive"]),
        .init(.log, "Log", [.text], ext: ["log"]),
        .init(.geoJSON, "GeoJSON document", [.json], mime: ["application/geo+json"], ext: ["geojson"]),

        .init(.assemblyLanguageSource, "Assembly source code", [.sourceCode], ext: ["s"]),
        .init(.objectiveCSource, "Objective-C source code", [.sourceCode], mime: ["text/x-objcsrc"], ext: ["m"]),
        .init(.objectiveCPlusPlusSource, "Objective-C++ source code", [.sourceCode], ext: ["mm"]),
        .init(
            .cPlusPlusHeader, "C++ header", [.sourceCode], mime: ["text/x-c++hdr"], ext: ["hpp", "hh", "hxx"]),
        .init(.makefile, "Makefile", [.script]),
        .init(
            .perlScript, "Perl script", [.script], mime: ["text/x-perl", "application/x-perl"], ext: ["pl", "pm"]),
        .init(.rubyScript, "Ruby script", [.script], mime: ["text/x-ruby", "application/x-ruby"], ext: ["rb"]),
        .init(.phpScript, "PHP script", [.script], mime: ["text/x-php", "application/x-php"], ext: ["php"]),

        .init(.icns, "Apple icon image", [.image], mime: ["image/x-icns"], ext: ["icns"]),
        .init(.rawImage, "Camera raw image", [.image]),
        .init(.dng, "DNG image", [.rawImage], mime: ["image/x-adobe-dng"], ext: ["dng"]),
        .init(.exr, "OpenEXR image", [.image], mime: ["image/x-exr"], ext: ["exr"]),
        .init(.jpegxl, "JPEG XL image", [.image], mime: ["image/jxl"], ext: ["jxl"]),

        .init(.mpeg, "MPEG movie", [.movie], mime: ["video/mpeg"], ext: ["mpg", "mpeg"]),
        .init(.mpeg2Video, "MPEG-2 video", [.movie], ext: ["m2v"]),
        .init(.mpeg2TransportStream, "MPEG-2 transport stream", [.movie], mime: ["video/mp2t"], ext: ["m2ts"]),
        .init(.mpeg4Audio, "MPEG-4 audio", [.audio], mime: ["audio/mp4", "audio/x-m4a"], ext: ["m4a"]),
        .init(.avi, "AVI movie", [.movie], mime: ["video/x-msvideo", "video/avi"], ext: ["avi"]),
        .init(.aiff, "AIFF audio", [.audio], mime: ["audio/aiff", "audio/x-aiff"], ext: ["aiff", "aif"]),
        .init(.midi, "MIDI audio", [.audio], mime: ["audio/midi", "audio/x-midi"], ext: ["mid", "midi"]),
        .init(.playlist, "Playlist", [.item]),
        .init(
            .m3uPlaylist, "M3U playlist", [.text, .playlist],
            mime: ["audio/x-mpegurl", "audio/mpegurl", "application/vnd.apple.mpegurl", "application/x-mpegurl"],
            ext: ["m3u", "m3u8"]),

        .init(.spreadsheet, "Spreadsheet", [.content]),
        .init(.presentation, "Presentation", [.compositeContent]),
        .init(.database, "Database", [.item]),
        .init(.epub, "EPUB book", [.zip, .compositeContent], mime: ["application/epub+zip"], ext: ["epub"]),
        .init(.pkcs12, "PKCS #12 archive", [.data], mime: ["application/x-pkcs12"], ext: ["p12", "pfx"]),
        .init(
            .x509Certificate, "X.509 certificate", [.data],
            mime: ["application/pkix-cert", "application/x-x509-ca-cert"],
            ext: ["cer", "crt", "der"]),
    ]
}
