import Foundation
import PasteboardTestSupport
import Synchronization

/// One cell group of the fidelity table in docs/reliability.md: what an application offered for one kind of copy,
/// what pb kept, and whether it was served back exactly after the application exited.
///
/// With `PB_FIDELITY_TABLE=FILE` in the environment, the tests append one Markdown row per case to FILE, which is
/// how the table was made; otherwise nothing is written.
enum FidelityReport {
    private static let lock = Mutex(())

    static func record(
        application: String, copy: String, offered: [String], kept: [String], servedBack: String, note: String = ""
    ) throws {
        guard let path = ProcessInfo.processInfo.environment["PB_FIDELITY_TABLE"], !path.isEmpty else { return }
        let cells = [
            application, copy, offered.isEmpty ? "–" : offered.map { "`\($0)`" }.joined(separator: " "),
            kept.isEmpty ? "nothing" : kept.map { "`\($0)`" }.joined(separator: " "), servedBack, note,
        ]
        let row = "| " + cells.joined(separator: " | ") + " |\n"
        try lock.withLock { _ in
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw SetupFailure("Cannot create PB_FIDELITY_TABLE file \(path)")
                }
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(row.utf8))
            try handle.close()
        }
    }
}

/// The structure of a PNG file, checked chunk by chunk.
enum PNGCheck {
    /// The width and height from IHDR when `data` is a whole PNG: the signature, chunks whose CRCs hold, ending
    /// with IEND. Nil for anything else (cut short, damaged, another format).
    static func dimensions(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        func uint32(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
        }
        var offset = 8
        var size: (width: Int, height: Int)?
        while offset + 12 <= bytes.count {
            let length = uint32(offset)
            guard offset + 12 + length <= bytes.count else { return nil }
            let typeAndBody = bytes[(offset + 4)..<(offset + 8 + length)]
            guard Payloads.crc32(typeAndBody) == UInt32(uint32(offset + 8 + length)) else { return nil }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "IHDR", length >= 8 { size = (uint32(offset + 8), uint32(offset + 12)) }
            offset += 12 + length
            if type == "IEND" { return offset == bytes.count ? size : nil }
        }
        return nil
    }
}
