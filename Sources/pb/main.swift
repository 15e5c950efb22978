import Glibc
import PasteboardCLI
import PasteboardDaemon
import PasteboardSystem

// The daemon opens the display as clients do (the client clipboard layer's factory), handed in here: it imports no
// client layer itself.
exit(
    PBCommandLine.main(
        CommandLine.arguments,
        context: .standard(daemon: { environment, kind, configuration, log, onReady in
            try Daemon.launch(
                environment: environment, backend: kind, configuration: configuration, open: BackendFactory.open,
                log: log, onReady: onReady)
        })))
