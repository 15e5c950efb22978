import ArgumentParsing
import ClipboardBackend
import Foundation
import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import PasteboardSystem

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
            guard BackendKind.names.contains(backend) else {
                throw CommandUsageError("Unknown backend \(quoted(backend)). Available: \(BackendKind.names.joined(separator: ", ")).")
            }
            environment["PB_BACKEND"] = backend
        }
        let backend: BackendKind
        do {
            backend = try BackendKind.detect(environment)
        } catch {
            throw CommandFailure(error.message)
        }
        guard let entry = context.daemonEntry else { throw CommandFailure("This program cannot run the daemon; run 'pb daemon'.") }
        let quiet = arguments.flag("quiet")
        let stderr = context.stderr
        let configuration = try context.configuration()
        let log: (String) -> Void = { message in
            if !quiet {
                stderr.line("\(LogTime.now()) pb daemon: \(message)")
                stderr.flush()
            }
        }
        do {
            try entry(environment, backend, configuration, log) {
                let out = context.stdout
                let shown: String
                switch backend {
                case .headless: shown = "headless backend"
                case .x11(let display): shown = "X11 backend on \(display)"
                }
                out.line("Pasteboard daemon \(PBCommandLine.version) running (\(shown), pid \(getpid())).")
                out.line("  store:  \(context.location.databaseURL.path)")
                out.line("  socket: \(context.runtime.socketPath)")
                if case .x11 = backend {
                    out.line(
                        configuration.capture.capturesPrimary
                            ? "  PRIMARY: recorded too (primary = on)"
                            : "  PRIMARY: not recorded (set primary = on in the configuration to record it)")
                }
                out.line("Try, in another terminal:")
                let pb = InvocationName.current(environment: context.environment).command
                out.line("  echo hello | \(pb) copy && \(pb) paste")
                out.line("  \(pb) history")
                out.line("  \(pb) watch          # live events")
                out.line("Stop with Ctrl-C.")
                out.flush()
            }
        } catch {
            // The daemon's errors describe themselves in words a user can act on.
            throw CommandFailure("\(error)")
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
        let clipboard = try context.clipboard()
        switch clipboard.kind {
        case .x11:
            do {
                _ = try clipboard.openBackend()
                out.line("backend:  x11 (CLIPBOARD watched through XFixes)")
            } catch {
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
        let runtime = clipboard.runtime
        do {
            let reply = try clipboard.daemon.perform(.status)
            out.line("daemon:   running (pid \(reply.pid.map(String.init) ?? "?")), socket \(runtime.socketPath)")
        } catch where error.code == .notRunning {
            out.line("daemon:   not running (start it with 'pb daemon'; pb works without it)")
        } catch {
            problems += 1
            out.line("daemon:   PROBLEM: it does not answer properly (\(error.message)); restart it.")
        }
        do {
            _ = try Configuration.load(environment: context.environment)
            out.line("config:   \(Configuration.path(environment: context.environment))")
        } catch {
            problems += 1
            out.line("config:   PROBLEM: \(error.message)")
        }
        if problems > 0 { throw CommandFailure("\(problems) problem\(problems == 1 ? "" : "s") found.") }
        out.line("All good.")
    }
}
