public import Foundation
import PasteboardHistory
import PasteboardModel

/// What a command runs with: its environment and streams, and access to the store and pasteboard.
public final class Context {
    public let environment: [String: String]
    public let stdout: Output
    public let stderr: Output
    private let readStandardInput: () -> Data
    /// True when standard input is a terminal (nothing piped in).
    public let stdinIsTerminal: Bool
    private var openedStore: HistoryStore?

    public init(
        environment: [String: String], stdout: Output, stderr: Output,
        stdinIsTerminal: Bool = false, readStandardInput: @escaping () -> Data
    ) {
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.stdinIsTerminal = stdinIsTerminal
        self.readStandardInput = readStandardInput
    }

    /// The process's real environment and streams.
    public static func standard() -> Context {
        Context(
            environment: ProcessInfo.processInfo.environment,
            stdout: .fileDescriptor(1), stderr: .fileDescriptor(2),
            stdinIsTerminal: isatty(0) == 1,
            readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() })
    }

    func readInput() -> Data { readStandardInput() }

    var location: StoreLocation { StoreLocation.standard(environment: environment) }

    /// The history store, opened once, with the configured retention.
    func store() throws -> HistoryStore {
        if let openedStore { return openedStore }
        let store = try HistoryStore(location: location)
        store.retention = try Configuration.load(environment: environment).retention
        // Expired items never show, even when no daemon ran to remove them on time.
        try store.deleteExpired()
        openedStore = store
        return store
    }

    /// The general pasteboard and its peers. Without a display they live in the store.
    func server() throws -> StorePasteboardServer {
        StorePasteboardServer(location: location)
    }
}
