import Dispatch
import FoundationEssentials
import Glibc
import SQLiteSupport

/// Payloads kept inside the database are packed with Zstandard and a dictionary the store learned from its own texts
/// (schema 11): short texts, each packed alone so that any one reads at once, take about half their size
/// (bench/scale_bench.py; bench/text_compression_bench.py compares the ways to pack them).
///
/// - **Where:** a packed row of `blobs` has the frame in `data` and its dictionary's id in `packing`; `size` and
///   `hash` are still those of the bytes themselves, which are checked against the hash after unpacking, as always.
///   Every query reads `pb_unpacked(data, packing, size)`, a function each connection defines (`init(db:)`), never
///   `data` itself. Rows written before, and payloads that do not shrink by an eighth, are kept as they are.
/// - **The dictionary** is learned once the store holds `trainingThreshold` payloads, from its newest texts, with
///   every word found in fewer than `minimumTexts` of them left out first: what it holds is punctuation and words
///   many texts share, never what only one item said (a password, a name, a number). It is deleted with the last
///   payload packed with it (a trigger counts them), and a new one is learned when enough payloads are there again.
final class PayloadPacking {
    static let minimumSize = 48
    static let trainingThreshold: Int64 = 4096
    static let trainingTexts = 4096
    static let minimumTexts = 8
    static let dictionaryCapacity = 32 * 1024
    static let level: Int32 = 1
    /// The largest size an unpacked payload may claim: the size of a database payload's ceiling.
    static let largestUnpacked = BlobFiles.fileThreshold

    private weak var db: Connection?
    private var packer: (id: Int64, packer: ZstdPacker)?
    /// The packer of `packedBatch`'s second half, with the same dictionary as `packer`.
    private var partnerPacker: (id: Int64, packer: ZstdPacker)?
    private var unpackers: [Int64: ZstdUnpacker] = [:]
    /// The number of database payloads at which to try learning a dictionary again after a try learned none.
    private var nextTraining = PayloadPacking.trainingThreshold

    init(db: Connection) throws(SQLiteError) {
        self.db = db
        try db.defineFunction("pb_unpacked", argumentCount: 3) { [weak self] call in
            guard !call.isNull(1) else { return call.returnArgument(0) }
            let size = Int(call.integer(2))
            let packing = call.integer(1)
            guard let self, size > 0, size <= Self.largestUnpacked, let unpacker = unpacker(packing) else {
                return call.returnEmptyBlob()  // an empty payload: the hash check reports it
            }
            call.withBytes(0) { frame in
                // The same payload again (a search's filter reads a text two or three times in one row): the bytes
                // unpacked last time, if the frame and dictionary are the same, byte for byte.
                if !last.holds(frame, packing: packing, size: size) {
                    guard last.unpack(frame, packing: packing, size: size, with: unpacker) else {
                        return call.returnEmptyBlob()
                    }
                }
                call.returnCopy(of: last.bytes)
            }
        }
    }

    /// The payload `pb_unpacked` unpacked last: its dictionary, frame and bytes, in buffers kept from call to call.
    private let last = LastUnpacked()

    private final class LastUnpacked {
        private var packing: Int64 = 0
        private var frame = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        private var frameCount = 0
        private var output = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        private var outputCount = 0

        deinit {
            frame.deallocate()
            output.deallocate()
        }

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: output[0..<outputCount]) }

        func holds(_ source: UnsafeRawBufferPointer, packing: Int64, size: Int) -> Bool {
            packing == self.packing && source.count > 0 && source.count == frameCount && size == outputCount
                && memcmp(frame.baseAddress!, source.baseAddress!, source.count) == 0
        }

        func unpack(_ source: UnsafeRawBufferPointer, packing: Int64, size: Int, with unpacker: ZstdUnpacker) -> Bool {
            self.packing = 0
            if output.count < size { Self.grow(&output, to: size) }
            guard unpacker.unpack(source, into: UnsafeMutableRawBufferPointer(rebasing: output[0..<size])) else {
                return false
            }
            if frame.count < source.count { Self.grow(&frame, to: source.count) }
            frame.copyMemory(from: source)
            frameCount = source.count
            outputCount = size
            self.packing = packing
            return true
        }

        private static func grow(_ buffer: inout UnsafeMutableRawBufferPointer, to count: Int) {
            buffer.deallocate()
            buffer = .allocate(byteCount: max(count, 2 * buffer.count), alignment: 1)
        }
    }

    private func unpacker(_ id: Int64) -> ZstdUnpacker? {
        if let unpacker = unpackers[id] { return unpacker }
        let stored = Result { () throws(SQLiteError) in try db?.row("SELECT dictionary FROM packings WHERE id = ?", id) }
        guard case .success(let row) = stored, let dictionary = row?.data("dictionary"),
            let unpacker = ZstdUnpacker(dictionary: dictionary)
        else { return nil }
        unpackers[id] = unpacker
        return unpacker
    }

    /// `data` as it is to be stored, and the dictionary it was packed with (nil: as it is). Within a write
    /// transaction: it may learn the store's dictionary first.
    func packed(_ data: Data) throws -> (stored: Data, packing: Int64?) {
        guard data.count >= Self.minimumSize else { return (data, nil) }
        return Self.packed(data, with: try currentPacker())
    }

    /// `payloads` (nil: a payload in a file) as `packed(_:)` would store them: an import's batch. A batch of
    /// `parallelBatch` or more is packed in two halves at once, the second with a packer of its own (an import
    /// uses one processor for SQLite; packing was a ninth of its time for its rows).
    func packedBatch(_ payloads: [Data?]) throws -> [(stored: Data?, packing: Int64?)] {
        let packer = try currentPacker()
        guard let packer, payloads.count >= Self.parallelBatch, let partner = try partner(for: packer) else {
            return payloads.map { payload in payload.map { Self.packed($0, with: packer) } ?? (nil, nil) }
        }
        var results = [(stored: Data?, packing: Int64?)](repeating: (nil, nil), count: payloads.count)
        let half = payloads.count / 2
        results.withUnsafeMutableBufferPointer { results in
            let work = HalvedWork(payloads: payloads, results: results, packers: [packer, (packer.id, partner)])
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                let range = part == 0 ? 0..<half : half..<work.payloads.count
                for index in range {
                    let packer = work.packers[part]
                    work.results[index] = work.payloads[index].map { Self.packed($0, with: packer) } ?? (nil, nil)
                }
            }
        }
        return results
    }

    /// Payloads in a batch from which the work is halved.
    static let parallelBatch = 64

    /// What the two halves of `packedBatch` share: each writes only its own results and uses only its own packer.
    private struct HalvedWork: @unchecked Sendable {
        let payloads: [Data?]
        let results: UnsafeMutableBufferPointer<(stored: Data?, packing: Int64?)>
        let packers: [(id: Int64, packer: ZstdPacker)]
    }

    /// A second packer with `packer`'s dictionary, for the other half of a batch; nil when it cannot be made.
    private func partner(for packer: (id: Int64, packer: ZstdPacker)) throws -> ZstdPacker? {
        if let partner = partnerPacker, partner.id == packer.id { return partner.packer }
        partnerPacker = nil
        let row = try db?.row("SELECT dictionary FROM packings WHERE id = ?", packer.id)
        guard let dictionary = row?.data("dictionary"), let made = ZstdPacker(dictionary: dictionary, level: Self.level)
        else { return nil }
        partnerPacker = (packer.id, made)
        return made
    }

    /// `data` packed with `packer` when that makes it at least an eighth (and 8 bytes) smaller, else as it is.
    static func packed(_ data: Data, with packer: (id: Int64, packer: ZstdPacker)?) -> (stored: Data, packing: Int64?) {
        guard data.count >= minimumSize, let packer,
            let packed = data.withUnsafeBytes({ packer.packer.pack($0, saving: max(8, $0.count / 8)) })
        else { return (data, nil) }
        return (packed, packer.id)
    }

    /// The dictionary to pack with now: the one this connection holds if the store still has it, else the store's
    /// newest, else one learned now when the store has enough payloads for it.
    func currentPacker() throws -> (id: Int64, packer: ZstdPacker)? {
        guard let db else { return nil }
        let newest = try db.row("SELECT id FROM packings ORDER BY id DESC LIMIT 1")?.int("id")
        if let packer, packer.id == newest { return packer }
        packer = nil
        if let newest {
            guard let row = try db.row("SELECT dictionary FROM packings WHERE id = ?", newest),
                let dictionary = row.data("dictionary"), let made = ZstdPacker(dictionary: dictionary, level: Self.level)
            else { return nil }
            packer = (newest, made)
            return packer
        }
        // Payload rows in the database and items (most of which keep their one text in their row, InlineText.swift).
        let payloads = try db.row(
            "SELECT coalesce((SELECT blobs FROM blob_totals WHERE in_file = 0), 0) "
                + "+ coalesce((SELECT sum(items) FROM item_totals), 0) AS n")?.int("n") ?? 0
        guard payloads >= nextTraining else { return nil }
        guard let dictionary = try learnDictionary(db), let made = ZstdPacker(dictionary: dictionary, level: Self.level)
        else {
            nextTraining = payloads * 2
            return nil
        }
        let id = try db.row(
            "INSERT INTO packings(dictionary, created) VALUES (?, ?) RETURNING id", dictionary,
            Date().timeIntervalSince1970)?.int("id")
        guard let id else { return nil }
        try db.run("INSERT INTO packing_uses(packing, uses) VALUES (?, 0)", id)
        packer = (id, made)
        return packer
    }

    /// A dictionary learned from the newest texts, with the words fewer than `minimumTexts` of them hold left out.
    private func learnDictionary(_ db: Connection) throws -> Data? {
        let texts = try db.rows(
            """
            SELECT iif(i.text_data IS NOT NULL, i.text_data, b.data) AS data
            FROM items i LEFT JOIN blobs b ON b.id = i.text_blob
            WHERE (i.text_data IS NOT NULL AND i.text_packing IS NULL AND i.size >= ?)
                OR (b.data IS NOT NULL AND b.packing IS NULL AND b.size >= ?)
            ORDER BY i.id DESC LIMIT ?
            """, Self.minimumSize, Self.minimumSize, Self.trainingTexts
        ).compactMap { $0.data("data") }
        let samples = Self.sharedWords(of: texts, minimumTexts: Self.minimumTexts)
        guard samples.reduce(0, { $0 + $1.count }) >= Self.dictionaryCapacity else { return nil }
        return ZstdDictionary.train(samples, capacity: Self.dictionaryCapacity)
    }

    /// Each text with the words (runs of letters, digits and non-ASCII bytes) that fewer than `minimumTexts` of the
    /// texts hold taken out; punctuation and spaces stay. Texts left empty are dropped.
    static func sharedWords(of texts: [Data], minimumTexts: Int) -> [[UInt8]] {
        func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
        }
        /// The text cut into words and single other bytes, in order.
        func pieces(_ text: [UInt8]) -> [(piece: ArraySlice<UInt8>, isWord: Bool)] {
            var pieces: [(ArraySlice<UInt8>, Bool)] = []
            var start = 0
            while start < text.count {
                let isWord = isWordByte(text[start])
                var end = start + 1
                if isWord { while end < text.count && isWordByte(text[end]) { end += 1 } }
                pieces.append((text[start..<end], isWord))
                start = end
            }
            return pieces
        }
        let cut = texts.map { pieces([UInt8]($0)) }
        var counts: [ArraySlice<UInt8>: Int] = [:]
        for text in cut {
            for word in Set(text.lazy.filter(\.isWord).map(\.piece)) { counts[word, default: 0] += 1 }
        }
        return cut.compactMap { text in
            var kept: [UInt8] = []
            for (piece, isWord) in text where !isWord || (counts[piece] ?? 0) >= minimumTexts {
                kept.append(contentsOf: piece)
            }
            return kept.contains(where: isWordByte) ? kept : nil
        }
    }
}
