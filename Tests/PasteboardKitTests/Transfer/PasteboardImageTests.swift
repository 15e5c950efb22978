import Foundation
import PasteboardKit
import Testing

@Suite struct PasteboardImageTests {
    // MARK: - Hand-built headers

    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    static func littleEndian(_ value: Int, bytes count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func png(width: UInt32, height: UInt32) -> Data {
        Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
                + bigEndian32(width) + bigEndian32(height) + [8, 6, 0, 0, 0] + [0, 0, 0, 0])
    }

    static func gif(width: Int, height: Int) -> Data {
        Data(Array("GIF89a".utf8) + littleEndian(width, bytes: 2) + littleEndian(height, bytes: 2) + [0xF7, 0, 0])
    }

    /// SOI, an APP0 (JFIF) segment, a DHT segment (C4, which is not a frame header), fill bytes, then SOF2.
    static func jpeg(width: Int, height: Int) -> Data {
        let app0: [UInt8] = [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let dht: [UInt8] = [0xFF, 0xC4, 0, 4, 0, 0]
        let sof2: [UInt8] =
            [0xFF, 0xFF, 0xC2, 0, 17, 8] + [UInt8(height >> 8), UInt8(height & 0xFF)]
            + [UInt8(width >> 8), UInt8(width & 0xFF)] + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return Data([0xFF, 0xD8] + app0 + dht + sof2 + [0xFF, 0xDA, 0, 2])
    }

    static func bmp(width: Int, height: Int) -> Data {
        Data(
            Array("BM".utf8) + littleEndian(58, bytes: 4) + [0, 0, 0, 0] + littleEndian(54, bytes: 4)
                + littleEndian(40, bytes: 4) + littleEndian(width, bytes: 4) + littleEndian(height, bytes: 4) + [
                    1, 0, 24, 0,
                ])
    }

    /// An OS/2 bitmap: a 12-byte core header with 16-bit sizes.
    static func coreBMP(width: Int, height: Int) -> Data {
        Data(
            Array("BM".utf8) + littleEndian(30, bytes: 4) + [0, 0, 0, 0] + littleEndian(26, bytes: 4)
                + littleEndian(12, bytes: 4) + littleEndian(width, bytes: 2) + littleEndian(height, bytes: 2) + [
                    1, 0, 24, 0,
                ])
    }

    static func webP(chunk: String, _ payload: [UInt8]) -> Data {
        Data(
            Array("RIFF".utf8) + littleEndian(4 + 8 + payload.count, bytes: 4) + Array("WEBP".utf8)
                + Array(chunk.utf8) + littleEndian(payload.count, bytes: 4) + payload)
    }

    static func lossyWebP(width: Int, height: Int) -> Data {
        webP(
            chunk: "VP8 ",
            [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A] + littleEndian(width, bytes: 2) + littleEndian(height, bytes: 2))
    }

    static func losslessWebP(width: Int, height: Int) -> Data {
        webP(chunk: "VP8L", [0x2F] + littleEndian((width - 1) | (height - 1) << 14, bytes: 4) + [0])
    }

    static func extendedWebP(width: Int, height: Int) -> Data {
        webP(chunk: "VP8X", [0x10, 0, 0, 0] + littleEndian(width - 1, bytes: 3) + littleEndian(height - 1, bytes: 3))
    }

    // MARK: - Dimensions

    @Test(
        arguments: [
            (png(width: 640, height: 480), ContentType.png, 640, 480),
            (png(width: 70_000, height: 1), .png, 70_000, 1),
            (gif(width: 300, height: 2), .gif, 300, 2),
            (jpeg(width: 1024, height: 768), .jpeg, 1024, 768),
            (bmp(width: 33, height: 17), .bmp, 33, 17),
            (bmp(width: 33, height: -17), .bmp, 33, 17),  // Top-down bitmap.
            (coreBMP(width: 12, height: 5), .bmp, 12, 5),
            (lossyWebP(width: 400, height: 301), .webP, 400, 301),
            (losslessWebP(width: 16_384, height: 3), .webP, 16_384, 3),
            (extendedWebP(width: 1920, height: 1080), .webP, 1920, 1080),
        ] as [(Data, ContentType, Int, Int)])
    func headerGivesFormatAndPixelSize(data: Data, type: ContentType, width: Int, height: Int) throws {
        let image = try #require(PasteboardImage(data: data))

        #expect(image.contentType == type)
        #expect(image.width == width)
        #expect(image.height == height)
        #expect(image.data == data)
    }

    @Test func truncatedHeaderGivesAnImageWithoutSize() throws {
        let image = try #require(PasteboardImage(data: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16])))

        #expect(image.contentType == .jpeg)
        #expect(image.width == nil)
        #expect(image.height == nil)
    }

    @Test(arguments: [Data("hello, world".utf8), Data(), Data([0x50, 0x4B, 0x03, 0x04, 0, 0])])
    func nonImageGivesNil(data: Data) {
        #expect(PasteboardImage(data: data) == nil)
    }

    // MARK: - Transfer

    @Test func imageExportsInItsOwnFormatOnly() async throws {
        let image = try #require(PasteboardImage(data: Self.gif(width: 2, height: 2)))
        let item = try await PasteboardItem(exporting: image)

        #expect(item.types == [.gif])
        #expect(try await item.value(as: PasteboardImage.self) == image)
    }

    @Test func readingPrefersPNGOverAnEarlierBMP() async throws {
        var item = PasteboardItem()
        item.setData(Self.bmp(width: 1, height: 1), forType: .bmp)
        item.setData(Self.png(width: 1, height: 1), forType: .png)

        let image = try #require(try await item.value(as: PasteboardImage.self))
        #expect(image.contentType == .png)
    }

    @Test func imageIsReadFromAnyImageType() async throws {
        let unknownImage = ContentType(exportedAs: "com.example.raw-image", conformingTo: [.image])
        let item = PasteboardItem(data: Self.png(width: 3, height: 4), type: unknownImage)

        let image = try #require(try await item.value(as: PasteboardImage.self))
        #expect(image.contentType == .png)
        #expect(image.width == 3)
    }

    @Test func imageTypeHoldingTextThrowsInvalidContent() async throws {
        let item = PasteboardItem(data: Data("not an image".utf8), type: .png)

        let error = await #expect(throws: PasteboardError.self) { try await item.value(as: PasteboardImage.self) }
        #expect(error?.code == .invalidContent)
    }
}
