public import FoundationEssentials

/// An encoded image on a pasteboard: its bytes, their format, and the pixel size read from the header.
///
/// The image is never decoded: the format is sniffed from the leading bytes and the size read from the
/// header of PNG, GIF, JPEG, BMP and WebP images (other formats have no size here). It transfers in its own
/// format and imports from any image representation, preferring lossless formats.
///
/// ```swift
/// let image = PasteboardImage(data: try Data(contentsOf: screenshotURL))!
/// (image.contentType, image.width, image.height)  // (.png, 1280, 800)
/// try await Pasteboard.general.write(image)
/// let pasted = try await Pasteboard.general.read(PasteboardImage.self)
/// ```
public struct PasteboardImage: Transferable, Sendable, Hashable {
    /// The encoded image, exactly as written.
    public let data: Data

    /// The image format, sniffed from `data`, for example `.png`.
    public let contentType: ContentType

    /// The width in pixels from the header, or nil when the format's header is not read or is damaged.
    public let width: Int?

    /// The height in pixels from the header, or nil when the format's header is not read or is damaged.
    ///
    /// A JPEG's height is as stored, before any EXIF rotation.
    public let height: Int?

    /// The image in `data`, or nil when `data` is not in an image format.
    public init?(data: Data) {
        let contentType = ContentType.sniff(data)
        guard contentType.isImage else { return nil }
        self.data = data
        self.contentType = contentType
        let size = Self.pixelSize(of: data, as: contentType)
        self.width = size?.width
        self.height = size?.height
    }

    /// Exports in the image's own format; imports from the formats in `transferredTypes`, in that order,
    /// then from any representation conforming to `.image`.
    public static var transferRepresentation: some TransferRepresentation<PasteboardImage> {
        ImageRepresentation()
    }

    /// The formats an image transfers as, in the order reading prefers them: lossless first, vector last.
    static let transferredTypes: [ContentType] = [
        .png, .tiff, .webP, .heic, .heif, .avif, .jpeg, .gif, .bmp, .ico, .svg,
    ]

    /// The image held by a representation of `contentType`.
    static func importing(_ data: Data, from contentType: ContentType) throws -> PasteboardImage {
        guard let image = PasteboardImage(data: data) else {
            throw PasteboardError(
                .invalidContent,
                "The '\(contentType)' representation does not hold an image in a known format (PNG, JPEG, GIF, "
                    + "WebP, BMP, TIFF, ICO, HEIF, AVIF or SVG).")
        }
        return image
    }
}

/// The representation of `PasteboardImage`: one entry per format, each exporting only images of that format.
struct ImageRepresentation: PrimitiveTransferRepresentation {
    typealias Item = PasteboardImage

    var body: Self { self }

    func primitiveEntries(in context: inout TransferFlattening) -> [TransferEntry<PasteboardImage>] {
        let formats = PasteboardImage.transferredTypes.map { contentType in
            TransferEntry<PasteboardImage>(
                contentType: contentType,
                export: { image in
                    guard image.contentType == contentType else { return nil }
                    return TransferExport(payload: .data(image.data))
                },
                import: { incoming in try PasteboardImage.importing(incoming.payload.loadData(), from: contentType) })
        }
        let anyImage = TransferEntry<PasteboardImage>(
            contentType: .image,
            export: nil,
            import: { incoming in try PasteboardImage.importing(incoming.payload.loadData(), from: .image) })
        return formats + [anyImage]
    }
}
