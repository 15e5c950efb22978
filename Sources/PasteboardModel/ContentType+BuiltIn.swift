// MARK: - Abstract and structural types

extension ContentType {
    /// The root of the conformance graph: everything is an item (`public.item`).
    public static let item = ContentType("public.item")
    /// Anything a person would call content, as opposed to its storage (`public.content`).
    public static let content = ContentType("public.content")
    /// Content made of several parts, such as a PDF document (`public.composite-content`).
    public static let compositeContent = ContentType("public.composite-content")
    /// A byte stream of any kind (`public.data`, `application/octet-stream`).
    public static let data = ContentType("public.data")
    /// A directory in a file system (`public.directory`).
    public static let directory = ContentType("public.directory")
    /// A directory a person sees as a folder (`public.folder`, `inode/directory`).
    public static let folder = ContentType("public.folder")
    /// A list of archived files (`public.archive`).
    public static let archive = ContentType("public.archive")
    /// Audio, video or both (`public.audiovisual-content`).
    public static let audiovisualContent = ContentType("public.audiovisual-content")
}

// MARK: - Text

extension ContentType {
    /// Text of any kind and encoding (`public.text`).
    public static let text = ContentType("public.text")
    /// Text without markup, encoding unspecified (`public.plain-text`, `text/plain`).
    public static let plainText = ContentType("public.plain-text")
    /// Plain text encoded as UTF-8 (`public.utf8-plain-text`, `text/plain;charset=utf-8`).
    public static let utf8PlainText = ContentType("public.utf8-plain-text")
    /// Plain text encoded as UTF-16 (`public.utf16-plain-text`, `text/plain;charset=utf-16`).
    public static let utf16PlainText = ContentType("public.utf16-plain-text")
    /// HTML (`public.html`, `text/html`).
    public static let html = ContentType("public.html")
    /// XHTML (`public.xhtml`, `application/xhtml+xml`).
    public static let xhtml = ContentType("public.xhtml")
    /// Rich Text Format (`public.rtf`, `text/rtf`).
    public static let rtf = ContentType("public.rtf")
    /// XML (`public.xml`, `application/xml`).
    public static let xml = ContentType("public.xml")
    /// JSON (`public.json`, `application/json`).
    public static let json = ContentType("public.json")
    /// YAML (`public.yaml`, `application/yaml`).
    public static let yaml = ContentType("public.yaml")
    /// Text of records split by a delimiter (`public.delimited-values-text`).
    public static let delimitedText = ContentType("public.delimited-values-text")
    /// Comma-separated values (`public.comma-separated-values-text`, `text/csv`).
    public static let commaSeparatedText = ContentType("public.comma-separated-values-text")
    /// Tab-separated values (`public.tab-separated-values-text`, `text/tab-separated-values`).
    public static let tabSeparatedText = ContentType("public.tab-separated-values-text")
    /// Markdown (`net.daringfireball.markdown`, `text/markdown`).
    public static let markdown = ContentType("net.daringfireball.markdown")
    /// A CSS style sheet (`public.css`, `text/css`).
    public static let css = ContentType("public.css")
    /// A vCard contact (`public.vcard`, `text/vcard`).
    public static let vCard = ContentType("public.vcard")
    /// An iCalendar event (`public.calendar-event`, `text/calendar`, `.ics`).
    public static let calendarEvent = ContentType("public.calendar-event")
    /// An email message (`public.email-message`, `message/rfc822`).
    public static let emailMessage = ContentType("public.email-message")
}

// MARK: - Source code

extension ContentType {
    /// Source code of any language (`public.source-code`).
    public static let sourceCode = ContentType("public.source-code")
    /// Swift source (`public.swift-source`).
    public static let swiftSource = ContentType("public.swift-source")
    /// C source (`public.c-source`).
    public static let cSource = ContentType("public.c-source")
    /// A C header (`public.c-header`).
    public static let cHeader = ContentType("public.c-header")
    /// C++ source (`public.c-plus-plus-source`).
    public static let cPlusPlusSource = ContentType("public.c-plus-plus-source")
    /// A script of any language (`public.script`).
    public static let script = ContentType("public.script")
    /// A shell script (`public.shell-script`).
    public static let shellScript = ContentType("public.shell-script")
    /// A Python script (`public.python-script`).
    public static let pythonScript = ContentType("public.python-script")
    /// JavaScript source (`com.netscape.javascript-source`, `text/javascript`).
    public static let javaScript = ContentType("com.netscape.javascript-source")
}

// MARK: - Links

extension ContentType {
    /// One URL (`public.url`).
    ///
    /// It deliberately has no MIME type, extension or X11 target: `text/uri-list` belongs to `.uriList`
    /// alone, so every MIME string maps to exactly one type and back. On X11 and Wayland a link travels
    /// as `.uriList` (one URL per CRLF-terminated line) and usually also as plain text; a backend serving a
    /// `.url` representation offers it under those types.
    public static let url = ContentType("public.url")
    /// A `file://` URL (`public.file-url`); like `.url` it has no MIME type and travels as `.uriList` or
    /// `.gnomeCopiedFiles`.
    public static let fileURL = ContentType("public.file-url")
    /// A list of URIs, one per CRLF-terminated line, `#` lines being comments
    /// (`org.freedesktop.uri-list`, `text/uri-list`).
    public static let uriList = ContentType("org.freedesktop.uri-list")
    /// Files copied or cut in a GNOME file manager: `copy` or `cut`, then one URI per line
    /// (`org.gnome.copied-files`, `x-special/gnome-copied-files`).
    public static let gnomeCopiedFiles = ContentType("org.gnome.copied-files")
    /// A link and its title, as Firefox and Chromium copy it: UTF-16LE text, the URL, a line feed, the title
    /// (`org.mozilla.url`, `text/x-moz-url`). Not plain text: its bytes are UTF-16.
    public static let mozillaURL = ContentType("org.mozilla.url")
}

// MARK: - Images

extension ContentType {
    /// An image of any format (`public.image`).
    public static let image = ContentType("public.image")
    /// PNG (`public.png`, `image/png`).
    public static let png = ContentType("public.png")
    /// JPEG (`public.jpeg`, `image/jpeg`; preferred extension `jpg`).
    public static let jpeg = ContentType("public.jpeg")
    /// GIF (`com.compuserve.gif`, `image/gif`).
    public static let gif = ContentType("com.compuserve.gif")
    /// WebP (`org.webmproject.webp`, `image/webp`).
    public static let webP = ContentType("org.webmproject.webp")
    /// Windows bitmap (`com.microsoft.bmp`, `image/bmp`).
    public static let bmp = ContentType("com.microsoft.bmp")
    /// TIFF (`public.tiff`, `image/tiff`).
    public static let tiff = ContentType("public.tiff")
    /// SVG, an image that is also XML (`public.svg-image`, `image/svg+xml`).
    public static let svg = ContentType("public.svg-image")
    /// Windows icon (`com.microsoft.ico`, `image/vnd.microsoft.icon`).
    public static let ico = ContentType("com.microsoft.ico")
    /// HEIF (`public.heif`, `image/heif`).
    public static let heif = ContentType("public.heif")
    /// HEIF holding HEVC images (`public.heic`, `image/heic`).
    public static let heic = ContentType("public.heic")
    /// AVIF (`public.avif`, `image/avif`).
    public static let avif = ContentType("public.avif")
}

// MARK: - Documents, media, archives, fonts

extension ContentType {
    /// PDF (`com.adobe.pdf`, `application/pdf`).
    public static let pdf = ContentType("com.adobe.pdf")
    /// PostScript (`com.adobe.postscript`, `application/postscript`).
    public static let postScript = ContentType("com.adobe.postscript")
    /// Audio of any format (`public.audio`).
    public static let audio = ContentType("public.audio")
    /// MP3 audio (`public.mp3`, `audio/mpeg`).
    public static let mp3 = ContentType("public.mp3")
    /// Waveform audio (`com.microsoft.waveform-audio`, `audio/wav`).
    public static let wav = ContentType("com.microsoft.waveform-audio")
    /// A movie: video, possibly with audio (`public.movie`).
    public static let movie = ContentType("public.movie")
    /// Video without audio (`public.video`).
    public static let video = ContentType("public.video")
    /// MPEG-4 movie (`public.mpeg-4`, `video/mp4`).
    public static let mpeg4Movie = ContentType("public.mpeg-4")
    /// QuickTime movie (`com.apple.quicktime-movie`, `video/quicktime`).
    public static let quickTimeMovie = ContentType("com.apple.quicktime-movie")
    /// ZIP archive (`public.zip-archive`, `application/zip`).
    public static let zip = ContentType("public.zip-archive")
    /// Gzip-compressed data (`org.gnu.gnu-zip-archive`, `application/gzip`).
    public static let gzip = ContentType("org.gnu.gnu-zip-archive")
    /// Bzip2-compressed data (`public.bzip2-archive`, `application/x-bzip2`).
    public static let bzip2 = ContentType("public.bzip2-archive")
    /// Tar archive (`public.tar-archive`, `application/x-tar`).
    public static let tarArchive = ContentType("public.tar-archive")
    /// A font of any format (`public.font`).
    public static let font = ContentType("public.font")
}

// MARK: - Declarations

extension ContentType {
    /// The built-in declarations, parents before children. Tags are listed preferred first; no MIME type
    /// or extension appears twice.
    static let builtInDeclarations: [Declaration] = coreBuiltInDeclarations + moreBuiltInDeclarations

    /// The declarations of the types in this file, parents before children.
    static let coreBuiltInDeclarations: [Declaration] = [
        .init(.item, "Item", []),
        .init(.content, "Content", [.item]),
        .init(.compositeContent, "Composite content", [.content]),
        .init(.data, "Data", [.item], mime: ["application/octet-stream"], ext: ["bin"]),
        .init(.directory, "Directory", [.item]),
        .init(.folder, "Folder", [.directory], mime: ["inode/directory"]),
        .init(.archive, "Archive", [.data]),
        .init(.audiovisualContent, "Audiovisual content", [.data, .content]),

        .init(.text, "Text", [.data, .content]),
        .init(.plainText, "Plain text", [.text], mime: ["text/plain"], ext: ["txt", "text"]),
        .init(.utf8PlainText, "Plain text (UTF-8)", [.plainText], mime: ["text/plain;charset=utf-8"]),
        .init(.utf16PlainText, "Plain text (UTF-16)", [.plainText], mime: ["text/plain;charset=utf-16"]),
        .init(.html, "HTML document", [.text], mime: ["text/html"], ext: ["html", "htm"]),
        .init(.xml, "XML document", [.text], mime: ["application/xml", "text/xml"], ext: ["xml"]),
        .init(.xhtml, "XHTML document", [.html, .xml], mime: ["application/xhtml+xml"], ext: ["xhtml", "xht"]),
        .init(.rtf, "Rich text document", [.text], mime: ["text/rtf", "application/rtf"], ext: ["rtf"]),
        .init(.json, "JSON document", [.text], mime: ["application/json"], ext: ["json"]),
        .init(
            .yaml, "YAML document", [.text],
            mime: ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"], ext: ["yaml", "yml"]),
        .init(.delimitedText, "Delimited text", [.text]),
        .init(
            .commaSeparatedText, "CSV document", [.delimitedText],
            mime: ["text/csv", "text/comma-separated-values"], ext: ["csv"]),
        .init(
            .tabSeparatedText, "TSV document", [.delimitedText], mime: ["text/tab-separated-values"], ext: ["tsv"]),
        .init(
            .markdown, "Markdown document", [.plainText], mime: ["text/markdown", "text/x-markdown"],
            ext: ["md", "markdown"]),
        .init(.css, "CSS style sheet", [.text], mime: ["text/css"], ext: ["css"]),
        .init(
            .vCard, "vCard", [.text], mime: ["text/vcard", "text/x-vcard", "text/directory"], ext: ["vcf", "vcard"]),
        .init(.calendarEvent, "Calendar event", [.text], mime: ["text/calendar"], ext: ["ics"]),
        .init(.emailMessage, "Email message", [.data, .content], mime: ["message/rfc822"], ext: ["eml"]),

        .init(.sourceCode, "Source code", [.plainText]),
        .init(.swiftSource, "Swift source code", [.sourceCode], mime: ["text/x-swift"], ext: ["swift"]),
        .init(.cSource, "C source code", [.sourceCode], mime: ["text/x-csrc", "text/x-c"], ext: ["c"]),
        .init(.cHeader, "C header", [.sourceCode], mime: ["text/x-chdr"], ext: ["h"]),
        .init(
            .cPlusPlusSource, "C++ source code", [.sourceCode], mime: ["text/x-c++src"], ext: ["cpp", "cc", "cxx"]),
        .init(.script, "Script", [.sourceCode]),
        .init(
            .shellScript, "Shell script", [.script],
            mime: ["application/x-sh", "text/x-shellscript", "application/x-shellscript"], ext: ["sh", "bash"]),
        .init(
            .pythonScript, "Python script", [.script], mime: ["text/x-python", "text/x-python3"], ext: ["py"]),
        .init(
            .javaScript, "JavaScript source code", [.script],
            mime: ["text/javascript", "application/javascript", "application/x-javascript"], ext: ["js", "mjs"]),

        .init(.url, "URL", [.data]),
        .init(.fileURL, "File URL", [.url]),
        .init(.uriList, "URI list", [.text], mime: ["text/uri-list"]),
        .init(.gnomeCopiedFiles, "Copied files", [.text], mime: ["x-special/gnome-copied-files"]),
        .init(.mozillaURL, "Link with title (UTF-16)", [.data], mime: ["text/x-moz-url"]),

        .init(.image, "Image", [.data, .content]),
        .init(.png, "PNG image", [.image], mime: ["image/png"], ext: ["png"]),
        .init(
            .jpeg, "JPEG image", [.image], mime: ["image/jpeg", "image/jpg", "image/pjpeg"],
            ext: ["jpg", "jpeg", "jpe"]),
        .init(.gif, "GIF image", [.image], mime: ["image/gif"], ext: ["gif"]),
        .init(.webP, "WebP image", [.image], mime: ["image/webp"], ext: ["webp"]),
        .init(.bmp, "BMP image", [.image], mime: ["image/bmp", "image/x-bmp", "image/x-ms-bmp"], ext: ["bmp", "dib"]),
        .init(.tiff, "TIFF image", [.image], mime: ["image/tiff"], ext: ["tiff", "tif"]),
        .init(.svg, "SVG image", [.image, .xml], mime: ["image/svg+xml"], ext: ["svg"]),
        .init(.ico, "Windows icon", [.image], mime: ["image/vnd.microsoft.icon", "image/x-icon"], ext: ["ico"]),
        .init(.heif, "HEIF image", [.image], mime: ["image/heif"], ext: ["heif"]),
        .init(.heic, "HEIC image", [.heif], mime: ["image/heic"], ext: ["heic"]),
        .init(.avif, "AVIF image", [.image], mime: ["image/avif"], ext: ["avif"]),

        .init(.pdf, "PDF document", [.data, .compositeContent], mime: ["application/pdf"], ext: ["pdf"]),
        .init(
            .postScript, "PostScript document", [.data, .compositeContent], mime: ["application/postscript"],
            ext: ["ps", "eps"]),
        .init(.audio, "Audio", [.audiovisualContent]),
        .init(.mp3, "MP3 audio", [.audio], mime: ["audio/mpeg", "audio/mp3"], ext: ["mp3"]),
        .init(
            .wav, "Waveform audio", [.audio], mime: ["audio/wav", "audio/x-wav", "audio/vnd.wave", "audio/wave"],
            ext: ["wav", "wave"]),
        .init(.movie, "Movie", [.audiovisualContent]),
        .init(.video, "Video", [.movie]),
        .init(.mpeg4Movie, "MPEG-4 movie", [.movie], mime: ["video/mp4"], ext: ["mp4", "m4v"]),
        .init(.quickTimeMovie, "QuickTime movie", [.movie], mime: ["video/quicktime"], ext: ["mov", "qt"]),
        .init(
            .zip, "ZIP archive", [.archive], mime: ["application/zip", "application/x-zip-compressed"], ext: ["zip"]),
        .init(
            .gzip, "Gzip archive", [.archive], mime: ["application/gzip", "application/x-gzip"], ext: ["gz", "gzip"]),
        .init(.bzip2, "Bzip2 archive", [.archive], mime: ["application/x-bzip2"], ext: ["bz2"]),
        .init(.tarArchive, "Tar archive", [.archive], mime: ["application/x-tar"], ext: ["tar"]),
        .init(.font, "Font", [.data, .content]),
    ]

    /// The built-in declarations, indexed once, with each type's transitive supertypes precomputed.
    struct BuiltIns: Sendable {
        let catalog: Catalog
        let supertypes: [String: Set<ContentType>]

        init(_ declarations: [Declaration]) {
            var catalog = Catalog()
            var supertypes: [String: Set<ContentType>] = [:]
            for declaration in declarations {
                // The table is written parents first; anything else is a mistake in this file.
                precondition(catalog.declarations[declaration.identifier] == nil, "\(declaration.identifier) twice")
                var closure: Set<ContentType> = []
                for parent in declaration.supertypes {
                    guard let inherited = supertypes[parent.identifier] else {
                        preconditionFailure("\(declaration.identifier) precedes its parent \(parent.identifier)")
                    }
                    closure.insert(parent)
                    closure.formUnion(inherited)
                }
                catalog.insert(declaration)
                supertypes[declaration.identifier] = closure
            }
            self.catalog = catalog
            self.supertypes = supertypes
        }
    }

    static let builtIns = BuiltIns(builtInDeclarations)

    /// Every built-in type, in table order.
    static var builtInTypes: [ContentType] { builtInDeclarations.map { ContentType($0.identifier) } }

    /// Short names accepted by `resolve(_:)`.
    static let aliases: [String: ContentType] = [
        "text": .text, "plain": .plainText, "utf8": .utf8PlainText, "html": .html, "rtf": .rtf, "url": .url,
        "file": .fileURL, "uri-list": .uriList, "json": .json, "xml": .xml, "csv": .commaSeparatedText,
        "image": .image, "png": .png, "jpeg": .jpeg, "jpg": .jpeg, "gif": .gif, "webp": .webP, "bmp": .bmp,
        "tiff": .tiff, "svg": .svg, "pdf": .pdf, "data": .data,
    ]
}

extension ContentType.Declaration {
    /// A built-in declaration.
    init(
        _ type: ContentType, _ description: String, _ supertypes: [ContentType], mime: [String] = [],
        ext: [String] = []
    ) {
        self.init(
            identifier: type.identifier, supertypes: supertypes, mimeTypes: mime, filenameExtensions: ext,
            description: description, origin: .builtIn)
    }
}
