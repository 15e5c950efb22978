package import FoundationEssentials
import SystemSupport

/// The content moving through a representation: bytes in memory, or a file that is never loaded whole
/// until something asks for its bytes.
package enum TransferPayload: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file; `allowsAccessingOriginal` false means receivers must get a copy, not the file itself.
    case file(URL, allowsAccessingOriginal: Bool)

    /// The bytes, read from the file if the payload is one.
    package func loadData() throws -> Data {
        switch self {
        case .data(let data):
            return data
        case .file(let url, _):
            do {
                return try Data(contentsOf: url, options: .mappedIfSafe)
            } catch {
                throw PasteboardError(
                    .storage, "Could not read the transferred file '\(url.path)': \(SystemError.reason(of: error))",
                    cause: error)
            }
        }
    }

    /// Runs `body` with the payload as a file, then deletes any temporary file made for it.
    ///
    /// Bytes are written to a new file named `fileName` in a fresh temporary directory. A file the sender
    /// allows access to is passed as it is; any other is first copied, in chunks, to a temporary directory.
    /// The received file exists only while `body` runs: an importer that keeps it must copy it
    /// (`ReceivedTransferredFile.copy(to:)`).
    func withReceivedFile<Result>(
        named fileName: String,
        _ body: (ReceivedTransferredFile) async throws -> Result
    ) async throws -> Result {
        if case .file(let url, true) = self {
            return try await body(ReceivedTransferredFile(url, isOriginalFile: true))
        }
        let directory = try Self.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }  // Best effort: the directory is ours alone.
        let file: URL
        switch self {
        case .data(let data):
            file = directory.appendingPathComponent(fileName, isDirectory: false)
            do {
                try data.write(to: file, options: .withoutOverwriting)
            } catch {
                throw PasteboardError(
                    .storage, "Could not write a temporary file for the import: \(SystemError.reason(of: error))",
                    cause: error)
            }
        case .file(let url, _):
            let copied = try ReceivedTransferredFile(url, isOriginalFile: false).copy(to: directory)
            // Stored payloads are named by content hash: give the copy the representation's file name.
            let named = directory.appendingPathComponent(fileName, isDirectory: false)
            do {
                try FileManager.default.moveItem(at: copied, to: named)
                file = named
            } catch {
                file = copied  // the content is intact under its stored name; only the name is lost
            }
        }
        return try await body(ReceivedTransferredFile(file, isOriginalFile: false))
    }

    private static func makeTemporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pasteboard-transfer-\(UUID().uuidString.lowercased())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PasteboardError(
                .storage,
                "Could not create a temporary directory in '\(FileManager.default.temporaryDirectory.path)': "
                    + "\(SystemError.reason(of: error)). Check that TMPDIR points to a writable directory.",
                cause: error)
        }
        return directory
    }
}
