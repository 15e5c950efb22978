public import ClipboardBackend
public import FoundationEssentials
public import PasteboardConfiguration
import PasteboardHistory
import PasteboardModel
#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// Runs the daemon in this process until it is stopped: the environment, the backend to use, the configuration,
/// where to log, and what to do once it serves. `pb` passes the daemon's entry point; the CLI does not depend on
/// the daemon's internals.
public typealias DaemonEntry = (
    _ environment: [String: String], _ backend: BackendKind, _ configuration: Configuration,
    _ log: @escaping (String) -> Void, _ onReady: (_ backend: String) -> Void
) throws -> Void

/// What a command runs with: its environment and streams, and access to the store and pasteboard.
public final class Context {
    public let environment: [String: String]
    public let stdout: Output
    public let stderr: Output
    private let readStandardInput: () -> Data
    /// True when standard input is a terminal (nothing piped in).
    public let stdinIsTerminal: Bool
    /// True when standard error is a terminal: long imports and exports then show their progress there.
    public let stderrIsTerminal: Bool
    /// The descriptor bulk commands (`pb import -`) read standard input from, line by line.
    public let standardInputDescriptor: Int32
    private var openedStore: HistoryStore?
    /// How `pb daemon` runs the daemon; nil where it cannot.
    let daemonEntry: DaemonEntry?

    public init(
        environment: [String: String], stdout: Output, stderr: Output,
        stdinIsTerminal: Bool = false, stderrIsTerminal: Bool = false, standardInputDescriptor: Int32 = 0,
        daemon: DaemonEntry? = nil, readStandardInput: @escaping () -> Data
    ) {
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.stdinIsTerminal = stdinIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.standardInputDescriptor = standardInputDescriptor
        self.daemonEntry = daemon
        self.readStandardInput = readStandardInput
    }

    /// The process's real environment and streams.
    public static func standard(daemon: DaemonEntry? = nil) -> Context {
        Context(
            environment: ProcessInfo.processInfo.environment,
            stdout: .fileDescriptor(1), stderr: .fileDescriptor(2),
            stdinIsTerminal: isatty(0) == 1, stderrIsTerminal: isatty(2) == 1, daemon: daemon,
            readStandardInput: { Self.readStandardInputToEnd() })
    }

    func readInput() -> Data { readStandardInput() }

    /// All of standard input. A read that fails (standard input is a directory, say) ends the process with a
    /// message and status 1, as `FileHandle.readDataToEndOfFile` stopped it, but with a reason a user can act on.
    private static func readStandardInputToEnd() -> Data {
        do {
            return try FileDescriptor.readToEnd(0)
        } catch {
            FileDescriptor.writeToStandardError("Error: Cannot read standard input: \(error.reason).\n")
            exit(1)
        }
    }

    var location: StoreLocation { StoreLocation.standard(environment: environment) }

    /// The history store, opened once, with the configured retention.
    func store() throws -> HistoryStore {
        if let openedStore { return openedStore }
        let store = try HistoryStore(location: location)
        store.retention = try configuration().retention
        // Expired items never show, even when no daemon ran to remove them on time.
        let expired = try store.deleteExpiredItems()
        openedStore = store
        if !expired.isEmpty, let problem = forgetOnDisplay(expired) {
            stderr.line("Warning: the daemon was not told that expired items are gone (\(problem)).")
        }
        return store
    }
}
