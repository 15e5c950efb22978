import FoundationEssentials
internal import CZstd

/// Zstandard with a dictionary, in compact frames: no magic number, content size, checksum or dictionary id (the
/// store keeps the size and the payload's hash beside the frame, and which dictionary in its own column).
///
/// A packer and an unpacker are each confined to one thread: they keep a compression or decompression context.
final class ZstdPacker {
    private let context: OpaquePointer
    private let dictionary: OpaquePointer

    /// Nil when the library refuses the dictionary or the frame settings.
    init?(dictionary bytes: Data, level: Int32) {
        guard let context = ZSTD_createCCtx() else { return nil }
        guard let dictionary = bytes.withUnsafeBytes({ ZSTD_createCDict($0.baseAddress, $0.count, level) }) else {
            ZSTD_freeCCtx(context)
            return nil
        }
        self.context = context
        self.dictionary = dictionary
        guard ZSTD_isError(pb_zstd_cctx_compact_frames(context)) == 0,
            ZSTD_isError(ZSTD_CCtx_refCDict(context, dictionary)) == 0
        else { return nil }
    }

    deinit {
        ZSTD_freeCCtx(context)
        ZSTD_freeCDict(dictionary)
    }

    /// Where frames are made before they are copied out at their size (one allocation per payload, not two).
    private var scratch = [UInt8](repeating: 0, count: 4096)

    /// `source` packed, or nil when the frame would not be at least `saving` bytes smaller.
    func pack(_ source: UnsafeRawBufferPointer, saving: Int) -> Data? {
        let capacity = source.count - saving
        guard capacity > 0 else { return nil }
        if scratch.count < capacity { scratch = [UInt8](repeating: 0, count: capacity) }
        return scratch.withUnsafeMutableBytes { target -> Data? in
            let written = ZSTD_compress2(context, target.baseAddress, capacity, source.baseAddress, source.count)
            guard ZSTD_isError(written) == 0 else { return nil }  // larger than `capacity`: not worth it
            return Data(bytes: target.baseAddress!, count: written)
        }
    }
}

/// Unpacks what a `ZstdPacker` with the same dictionary packed.
final class ZstdUnpacker {
    private let context: OpaquePointer
    private let dictionary: OpaquePointer

    init?(dictionary bytes: Data) {
        guard let context = ZSTD_createDCtx() else { return nil }
        guard let dictionary = bytes.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) }) else {
            ZSTD_freeDCtx(context)
            return nil
        }
        self.context = context
        self.dictionary = dictionary
        guard ZSTD_isError(pb_zstd_dctx_compact_frames(context)) == 0,
            ZSTD_isError(ZSTD_DCtx_refDDict(context, dictionary)) == 0
        else { return nil }
    }

    deinit {
        ZSTD_freeDCtx(context)
        ZSTD_freeDDict(dictionary)
    }

    /// Unpacks `source` into `destination`; false unless it is one whole frame of exactly `destination.count` bytes
    /// (a damaged frame, or one packed with another dictionary, fails here or in the hash check after it).
    func unpack(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) -> Bool {
        guard source.count > 0 else { return false }
        let written = ZSTD_decompressDCtx(
            context, destination.baseAddress, destination.count, source.baseAddress, source.count)
        return ZSTD_isError(written) == 0 && written == destination.count
    }
}

enum ZstdDictionary {
    /// A dictionary of at most `capacity` bytes trained on `samples` (zstd's own trainer), or nil when the samples
    /// are too few or too alike for one.
    static func train(_ samples: [[UInt8]], capacity: Int) -> Data? {
        let sizes = samples.map(\.count)
        let joined = samples.flatMap { $0 }
        guard !joined.isEmpty else { return nil }
        var dictionary = Data(count: capacity)
        let written = dictionary.withUnsafeMutableBytes { target in
            joined.withUnsafeBytes { source in
                sizes.withUnsafeBufferPointer { sizes in
                    ZDICT_trainFromBuffer(
                        target.baseAddress, capacity, source.baseAddress, sizes.baseAddress, UInt32(sizes.count))
                }
            }
        }
        guard ZDICT_isError(written) == 0, written > 0 else { return nil }
        dictionary.count = written
        return dictionary
    }
}
