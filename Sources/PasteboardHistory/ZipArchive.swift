internal import CZlib
import FoundationEssentials

/// The members of a zip archive held in memory, found through its central directory: what an archive holds, apart
/// from how it was packed (member times, compression levels, extra fields).
///
/// Only what identity needs (see `VolatileField.openDocumentPackage`): members stored or deflated, no zip64, no
/// encryption, no archive split over disks. Anything else, or bytes that are not a well-formed archive, are refused.
/// Bounded: the members' inflated sizes (as the central directory states them, and checked while inflating) add
/// up to at most `limit` bytes.
enum ZipArchive {
    /// Calls `body` with the name and the inflated bytes of each member of `archive`, in the central directory's
    /// order, one at a time; false (after calling `body` for the members before it, perhaps) when the archive is
    /// not one this reads (see above).
    static func forEachMember(of archive: [UInt8], limit: Int, _ body: (ArraySlice<UInt8>, [UInt8]) -> Void) -> Bool {
        guard let end = endOfCentralDirectory(archive) else { return false }
        var total = 0
        var offset = end.directoryOffset
        for _ in 0..<end.entryCount {
            guard archive.uint32(at: offset) == 0x0201_4b50, let nameLength = archive.uint16(at: offset + 28),
                let extraLength = archive.uint16(at: offset + 30), let commentLength = archive.uint16(at: offset + 32),
                let flags = archive.uint16(at: offset + 8), let method = archive.uint16(at: offset + 10),
                let compressedSize = archive.uint32(at: offset + 20), let size = archive.uint32(at: offset + 24),
                let localOffset = archive.uint32(at: offset + 42)
            else { return false }
            let nameStart = offset + 46
            guard nameStart + Int(nameLength) <= archive.count else { return false }
            // Bit 0: encrypted. 0xFFFFFFFF: the real value is in a zip64 extra field.
            guard flags & 1 == 0, compressedSize != .max, size != .max, localOffset != .max else { return false }
            total += Int(size)
            guard total <= limit,
                let data = memberData(archive, localOffset: Int(localOffset), compressedSize: Int(compressedSize)),
                let bytes = inflated(data, method: method, size: Int(size))
            else { return false }
            body(archive[nameStart..<nameStart + Int(nameLength)], bytes)
            offset = nameStart + Int(nameLength) + Int(extraLength) + Int(commentLength)
        }
        return true
    }

    // MARK: - Structure

    /// Where the central directory starts and how many entries it has, from the end-of-central-directory record
    /// (at most 64 KiB of comment after it).
    private static func endOfCentralDirectory(_ archive: [UInt8]) -> (directoryOffset: Int, entryCount: Int)? {
        guard archive.count >= 22 else { return nil }
        var start = archive.count - 22
        let lowest = max(0, start - 0xFFFF)
        while start >= lowest {
            if archive.uint32(at: start) == 0x0605_4b50, let disk = archive.uint16(at: start + 4),
                let directoryDisk = archive.uint16(at: start + 6), let entries = archive.uint16(at: start + 10),
                let directoryOffset = archive.uint32(at: start + 16)
            {
                guard disk == 0, directoryDisk == 0, entries != .max, directoryOffset != .max,
                    Int(directoryOffset) <= start
                else { return nil }
                return (Int(directoryOffset), Int(entries))
            }
            start -= 1
        }
        return nil
    }

    /// A member's stored bytes, after its local header.
    private static func memberData(_ archive: [UInt8], localOffset: Int, compressedSize: Int) -> ArraySlice<UInt8>? {
        guard archive.uint32(at: localOffset) == 0x0403_4b50, let nameLength = archive.uint16(at: localOffset + 26),
            let extraLength = archive.uint16(at: localOffset + 28)
        else { return nil }
        let start = localOffset + 30 + Int(nameLength) + Int(extraLength)
        guard start + compressedSize <= archive.count else { return nil }
        return archive[start..<start + compressedSize]
    }

    // MARK: - Inflating

    /// A member's bytes: stored (method 0) as they are, deflated (method 8) inflated, when they come to exactly
    /// `size` bytes.
    private static func inflated(_ data: ArraySlice<UInt8>, method: UInt16, size: Int) -> [UInt8]? {
        switch method {
        case 0: return data.count == size ? Array(data) : nil
        case 8: return inflate(data, size: size)
        default: return nil
        }
    }

    /// Raw deflate data (no zlib header) inflated into exactly `size` bytes, or nil.
    private static func inflate(_ data: ArraySlice<UInt8>, size: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: size)
        var input = Array(data)
        var stream = z_stream()
        // Negative window bits: raw deflate, as zip stores it (zlib.h, inflateInit2).
        guard inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        let status = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                // All input and the whole output buffer at once: Z_FINISH ends the stream or says it did not fit.
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == size else { return nil }
        return output
    }
}

extension Array where Element == UInt8 {
    /// The little-endian 16-bit value at `offset`, or nil past the end.
    fileprivate func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    /// The little-endian 32-bit value at `offset`, or nil past the end.
    fileprivate func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= count else { return nil }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
            | UInt32(self[offset + 3]) << 24
    }
}
