import ArgumentParsing
import Foundation
import PasteboardDaemon
import PasteboardHistory

enum DaemonCommand: Command {
    static let spec = CommandSpec(
        name: "daemon", abstract: "Run the Pasteboard daemon in the foreground (Ctrl-C or SIGTERM stops it).",
        options: [
            .init("backend", value: "NAME", help: "x11, headless, or auto (default: x11 when DISPLAY is set)."),
            .init("quiet", short: "q", help: "Log only errors."),
        ],
        discussion: "It expires items on time, applies retention and answers clients on a socket in $XDG_RUNTIME_DIR/pasteboard.")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        var environment = context.environment
        if let backend = arguments.value("backend") {
            guard ["x11", "headless", "auto"].contains(backend) else {
                throw CommandUsageError("Unknown backend '\(backend)'. Available: x11, headless, auto.")
            }
            environment["PB_BACKEND"] = backend
        }
        let backend = try DisplayBackend.detect(environment)
        let quiet = arguments.flag("quiet")
        let stderr = context.stderr
        let configuration = try Configuration.load(environment: context.environment)
        // posix_spawn passes on the spawning thread's signal mask, and Dispatch worker threads block almost
        // every signal: started by Foundation.Process from such a thread, the daemon would see SIGTERM/SIGINT
        // stay pending forever. Unblock the signals that stop it.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        guard sigprocmask(SIG_UNBLOCK, &stopSignals, nil) == 0 else {
            throw CommandFailure("Cannot unblock SIGTERM and SIGINT: \(String(cString: strerror(errno))).")
        }
        let daemon = Daemon(
            location: context.location, runtime: RuntimeDirectory.standard(environment: context.environment),
            retention: configuration.retention
        ) { message in
            if !quiet {
                stderr.line("pb daemon: \(message)")
                stderr.flush()
            }
        }
        do {
            if case .x11(let display) = backend {
                try daemon.attachX11(displayName: display, policy: configuration.capture)
            }
            try daemon.run {
                let out = context.stdout
                let shown = backend == .headless ? "headless backend" : "X11 backend on \(context.environment["DISPLAY"] ?? "")"
                out.line("Pasteboard daemon \(PBCommandLine.version) running (\(shown), pid \(getpid())).")
                out.line("  store:  \(context.location.databaseURL.path)")
                out.line("  socket: \(daemon.runtime.socketPath)")
                out.line("Try, in another terminal:")
                let pb = InvocationName.current(environment: context.environment).command
                out.line("  echo hello | \(pb) copy && \(pb) paste")
                out.line("  \(pb) history")
                out.line("  \(pb) watch          # live events")
                out.line("Stop with Ctrl-C.")
                out.flush()
            }
        } catch let error as DaemonError {
            throw CommandFailure(error.message)
        }
    }
}

enum DoctorCommand: Command {
    static let spec = CommandSpec(
        name: "doctor", abstract: "Check the setup: display, daemon, store, socket; say how to fix problems.")

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let out = context.stdout
        var problems = 0
        let display = context.environment["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        let wayland = context.environment["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        out.line("display:  \(display.map { "X11 \($0)" } ?? wayland.map { "Wayland \($0)" } ?? "none (headless)")")
        let backend = try context.backend
        switch backend {
        case .x11(let shown):
            do {
                _ = try context.x11Clipboard(shown)
                out.line("backend:  x11 (CLIPBOARD watched through XFixes)")
            } catch let error as CommandFailure {
                problems += 1
                out.line("backend:  PROBLEM: \(error.message)")
            }
        case .headless:
            out.line("backend:  headless (the clipboard lives in the history store)")
            if wayland != nil {
                out.line("  note: Wayland is not supported yet; run under XWayland with DISPLAY set to use the desktop clipboard.")
            }
        }
        let location = context.location
        switch Result(catching: { () throws(HistoryError) -> Int in try HistoryStore(location: location).count() }) {
        case .success(let count):
            out.line("store:    \(location.databaseURL.path) (\(count) items)")
        case .failure(let error):
            problems += 1
            out.line("store:    PROBLEM: \(error.message)")
        }
        let runtime = RuntimeDirectory.standard(environment: context.environment)
        if let reply = DaemonClient(runtime: runtime).request("status") {
            out.line("daemon:   running (pid \(reply["pid"] ?? "?")), socket \(runtime.socketPath)")
        } else {
            out.line("daemon:   not running (start it with 'pb daemon'; pb works without it)")
        }
        do {
            _ = try Configuration.load(environment: context.environment)
            out.line("config:   \(Configuration.path(environment: context.environment))")
        } catch let error as CommandFailure {
            problems += 1
            out.line("config:   PROBLEM: \(error.message)")
        }
        if problems > 0 { throw CommandFailure("\(problems) problem\(problems == 1 ? "" : "s") found.") }
        out.line("All good.")
    }
}
