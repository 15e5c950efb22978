public import ClipboardBackend
public import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import DisplayBackends

extension Daemon {
    /// Opens the display's backend, then runs a daemon for the user `environment` describes until it is stopped:
    /// what `pb daemon` does.
    public static func launch(
        environment: [String: String], backend kind: BackendKind, configuration: Configuration,
        log: @escaping (String) -> Void, onReady: () -> Void
    ) throws(DaemonError) {
        let backend: (any ClipboardBackend)?
        do {
            backend = try BackendFactory.open(kind)
        } catch {
            throw DaemonError(error.message, cause: error)
        }
        let daemon = Daemon(
            location: StoreLocation.standard(environment: environment),
            runtime: RuntimeDirectory.standard(environment: environment), configuration: configuration, backend: backend,
            log: log)
        try daemon.run(onReady: onReady)
    }
}
