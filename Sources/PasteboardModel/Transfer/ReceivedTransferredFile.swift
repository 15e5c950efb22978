public import FoundationEssentials
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file a `FileRepresentation` importer receives.
///
/// A file that is not the original (`isOriginalFile` false) is a temporary copy that is deleted when the
/// importer returns: copy it somewhere to keep it.
///
/// ```swift
/// FileRepresentation(importedContentType: .quickTimeMovie) { received in
///     Video(url: try received.copy(to: libraryDirectory))  // "clip.mov", or "clip 2.mov" if taken
/// }
/// ```
public struct ReceivedTransferredFile: Sendable, Hashable {
    /// The file's location.
    public let file: URL

    /// Whether `file` is the sender's own file rather than a temporary copy.
    public let isOriginalFile: Bool

    /// A received file, as a backend hands it to an importer (or a test to the code it tests).
    public init(_ file: URL, isOriginalFile: Bool) {
        self.file = file
        self.isOriginalFile = isOriginalFile
    }

    /// Copies the file into `directory` under its own name, or the first free "name 2.ext", "name 3.ext", …
    ///
    /// The copy streams in chunks, so a large file is never held in memory whole. The destination is created
    /// exclusively, so a concurrent copy never overwrites it. On failure nothing is left behind.
    ///
    /// - Returns: The location of the copy.
    public func copy(to directory: URL) throws -> URL {
        let source: ReadableFile
        do throws(SystemError) {
            source = try ReadableFile(path: file.path)
        } catch {
            throw PasteboardError(
                .storage, "Could not open the received file '\(file.path)': \(error.reason)", cause: error)
        }
        let (destination, descriptor) = try createUniqueFile(in: directory)
        var failure: SystemError?
        do throws(SystemError) {
            while true {
                let chunk = try source.read(upToCount: Self.chunkSize)
                if chunk.isEmpty { break }
                try FileDescriptor.write(chunk, to: descriptor)
            }
        } catch {
            failure = error
        }
        if close(descriptor) != 0 { failure = failure ?? SystemError.last("close") }
        if let failure {
            try? FileManager.default.removeItem(at: destination)  // Best effort clean-up of our own partial file.
            throw PasteboardError(
                .storage,
                "Could not copy '\(file.lastPathComponent)' to '\(directory.path)': \(failure.reason)", cause: failure)
        }
        return destination
    }

    /// How much of the file one read moves.
    static let chunkSize = 1 << 20

    /// Creates the first free candidate name in `directory` with `O_EXCL` and returns it with its descriptor.
    private func createUniqueFile(in directory: URL) throws -> (URL, Int32) {
        let name = file.lastPathComponent
        for attempt in 1...10_000 {
            let candidate = directory.appendingPathComponent(Self.name(name, attempt: attempt), isDirectory: false)
            let descriptor = open(candidate.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return (candidate, descriptor) }
            let failure = SystemError.last("open")
            if failure.errno == EEXIST { continue }
            throw PasteboardError(
                .storage, "Could not create '\(candidate.path)': \(failure.reason).", cause: failure)
        }
        throw PasteboardError(
            .storage, "Could not find a free name for '\(name)' in '\(directory.path)'; remove some copies.")
    }

    /// `name` for the first attempt, then "base 2.ext", "base 3.ext", … (a leading dot is not an extension).
    static func name(_ name: String, attempt: Int) -> String {
        guard attempt > 1 else { return name }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name) \(attempt)" }
        return "\(name[..<dot]) \(attempt)\(name[dot...])"
    }
}
