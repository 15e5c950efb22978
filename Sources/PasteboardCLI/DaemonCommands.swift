import ArgumentParsing
import GnomeExtension
import ClipboardBackend
import DisplayBackends
import FoundationEssentials
import PasteboardConfiguration
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PasteboardSystem
import SystemSupport
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

enum DaemonCommand: Command {
    static let spec = CommandSpec(
        name: "daemon", abstract: "Run the Pasteboard daemon in the foreground (Ctrl-C or SIGTERM stops it).",
        options: [
            .init("backend", value: "NAME", help: "x11, wayland, headless, or auto (default: wayland when WAYLAND_DISPLAY is set, else x11 when DISPLAY is)."),
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
            throw CommandFailure(error.message, cause: error)
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
            try entry(environment, backend, configuration, log) { shown in
                let out = context.stdout
                out.line("Pasteboard daemon \(PBCommandLine.version) running (\(shown), pid \(getpid())).")
                out.line("  store:  \(context.location.databaseURL.path)")
                out.line("  socket: \(context.runtime.socketPath)")
                if backend.hasDisplay {
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
            throw CommandFailure("\(error)", cause: error)
        }
    }
}

enum DoctorCommand: Command {
    static let spec = CommandSpec(
        name: "doctor", abstract: "Check the setup: display, daemon, store, socket; say how to fix problems.",
        options: [
            .init(
                "check",
                help: "Also read every stored payload and check it against its hash, and the database's integrity.")
        ],
        discussion:
            "Exits 1 when it finds a problem; 'All good.' means the store is safe and readable and the daemon answers "
            + "or can start.")

    /// How long the daemon has to answer.
    static let daemonTimeout: TimeInterval = 2

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
        case .wayland(_, let fallback) where GnomeDesktop.isCurrent(context.environment):
            problems += gnomeBackend(fallback: fallback, environment: context.environment, out: out)
        case .wayland(_, let fallback):
            problems += waylandBackend(clipboard, fallback: fallback, out: out)
        case .headless:
            out.line("backend:  headless (the clipboard lives in the history store)")
        }
        let location = context.location
        var store: HistoryStore?
        do {
            let opened = try HistoryStore(location: location)
            out.line("store:    \(location.databaseURL.path) (\(try opened.count()) items)")
            store = opened
        } catch {
            problems += 1
            out.line("store:    PROBLEM: \(error.message)")
        }
        if arguments.flag("check"), let store {
            problems += try check(store, out: out)
        }
        var status: ControlReply?
        problems += daemon(clipboard, out: out, status: &status)
        if let summary = status?.backendSummary { out.line("daemon:   sees \(summary)") }
        out.line(AllowPasteNotice.doctorLine(clipboard, status: status, environment: context.environment))
        if let failure = lastDeferredPasteFailure(clipboard.runtime) { out.line("typing:   the last deferred paste failed: \(failure)") }
        do {
            let configuration = try Configuration.load(environment: context.environment)
            out.line("config:   \(Configuration.path(environment: context.environment))")
            out.line(
                configuration.capture.capturesPrimary
                    ? "primary:  recorded too (primary = on)"
                    : "primary:  not recorded, only CLIPBOARD (set primary = on in the configuration to record it)")
        } catch {
            problems += 1
            out.line("config:   PROBLEM: \(error.message)")
        }
        if problems > 0 { throw CommandFailure("\(problems) problem\(problems == 1 ? "" : "s") found.") }
        out.line("All good.")
    }

    /// The first line the process typing the last deferred paste (`pb pick --paste` on Wayland) wrote on standard
    /// error, quoted; nil when it wrote nothing (it pasted) or there was none.
    static func lastDeferredPasteFailure(_ runtime: RuntimeDirectory) -> String? {
        let head: Data
        do {
            head = try ReadableFile(path: runtime.pasteLogPath).read(upToCount: 1024)
        } catch {
            // No log (no deferred paste yet) or none readable: nothing to show; doctor checks the directory itself.
            return nil
        }
        guard !head.isEmpty else { return nil }
        let text = String(decoding: head, as: UTF8.self)
        var line = text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? text
        if line.hasPrefix("Error: ") { line.removeFirst(7) }
        return quoted(line)
    }

    /// GNOME Wayland: whether the Pasteboard Shell extension runs (the daemon's sensor there) and Xwayland is there
    /// (to serve every type); the number of problems.
    static func gnomeBackend(fallback: String?, environment: [String: String], out: Output) -> Int {
        let xwayland = fallback.map { "Xwayland \($0)" } ?? "no Xwayland (DISPLAY unset)"
        switch ShellPresence.check(environment: environment) {
        case .loaded(let version) where version == UInt32(ExtensionSource.version):
            out.line("backend:  gnome: the Pasteboard Shell extension reports every copy (with its application, CLIPBOARD")
            out.line("  and PRIMARY) and types pastes; the daemon serves through \(xwayland)"
                + (fallback == nil ? ", so only the richest type of an item" : ""))
            return 0
        case .loaded(let version):
            out.line("backend:  PROBLEM: gnome: the Pasteboard Shell extension runs version \(version), this pb needs "
                + "\(ExtensionSource.version): run 'pb gnome-extension install', then log out and in")
            return 1
        case .notLoaded, .noBus:
            if fallback == nil {
                out.line("backend:  PROBLEM: gnome without Xwayland and without the Pasteboard Shell extension: nothing")
                out.line("  can reach the clipboard. Run 'pb gnome-extension install', then log out and in.")
                return 1
            }
            out.line("backend:  gnome through \(xwayland) only: copies are seen without their application, mutter's")
            out.line("  text-only copy is recorded when an application exits, a secret's text stays on the clipboard")
            out.line("  and --paste cannot type. The Pasteboard Shell extension fixes all four:")
            out.line("  run 'pb gnome-extension install', then log out and in ('pb gnome-extension status' checks it).")
            return 0
        }
    }

    /// Whether the Wayland compositor offers data-control (or the XWayland fallback opens); the number of problems.
    static func waylandBackend(_ clipboard: SystemClipboard, fallback: String?, out: Output) -> Int {
        do {
            guard let backend = try clipboard.openBackend() else { return 0 }
            if backend.name == "wayland" {
                out.line("backend:  wayland (selections watched through the compositor's data-control protocol)")
            } else {
                out.line("backend:  x11 on XWayland \(fallback ?? "") (the compositor has no data-control protocol)")
                out.line("  note: only X11 applications' copies are seen; for native Wayland ones, use a compositor with")
                out.line("  data-control (sway, KDE Plasma, Wayfire, Hyprland) or a GNOME Shell clipboard extension.")
            }
            return 0
        } catch {
            out.line("backend:  PROBLEM: \(error.message)")
            if BackendFactory.lacksDataControl(error) {
                out.line("  options: run applications under XWayland with DISPLAY set (the daemon then records X11")
                out.line("  applications' copies), or use a GNOME Shell clipboard extension; sway, KDE Plasma,")
                out.line("  Wayfire and Hyprland offer data-control.")
            }
            return 1
        }
    }

    /// Whether the daemon answers, or else could start; returns the number of problems found.
    static func daemon(_ clipboard: SystemClipboard, out: Output, status: inout ControlReply?) -> Int {
        let runtime = clipboard.runtime
        do {
            let reply = try clipboard.daemon.perform(.status, timeout: daemonTimeout)
            status = reply
            out.line("daemon:   running (pid \(reply.pid.map(String.init) ?? "?")), socket \(runtime.socketPath)")
            if let problem = reply.backendProblem {
                // It keeps running and connects again by itself; meanwhile nothing is recorded.
                out.line("daemon:   PROBLEM: its \(reply.backend ?? "display") backend: \(problem)")
                return 1
            }
            return 0
        } catch where error.code == .notRunning {
            // Nothing listens: fine, as long as a daemon could start.
        } catch where error.code == .noAnswer {
            let holder = runtime.lockHolder()
            out.line(
                "daemon:   PROBLEM: the daemon\(holder.map { " (pid \($0))" } ?? "") does not answer on "
                    + "\(runtime.socketPath) within \(Int(daemonTimeout)) s (\(error.message)); it is stuck: stop it"
                    + "\(holder.map { " (kill \($0))" } ?? "") and start 'pb daemon' again.")
            return 1
        } catch where error.code == .untrusted {
            out.line("daemon:   PROBLEM: \(error.message)")
            return 1
        } catch {
            out.line("daemon:   PROBLEM: it does not answer properly (\(error.message)); restart it.")
            return 1
        }
        if let holder = runtime.lockHolder() {
            out.line(
                "daemon:   PROBLEM: a daemon (pid \(holder)) holds \(runtime.lockPath) but does not listen on "
                    + "\(runtime.socketPath); if it is not just starting, it is stuck: stop it (kill \(holder)) and "
                    + "start 'pb daemon' again.")
            return 1
        }
        do {
            try runtime.check()
        } catch {
            out.line("daemon:   PROBLEM: not running, and it could not start: \(error.message)")
            return 1
        }
        out.line("daemon:   not running (start it with 'pb daemon'; pb works without it)")
        return 0
    }

    /// `--check`: the database's integrity and every payload against its hash; returns the number of problems.
    static func check(_ store: HistoryStore, out: Output) throws -> Int {
        var problems = 0
        let integrity = try store.integrityCheck()
        if integrity == ["ok"] {
            out.line("database: integrity ok")
        } else {
            problems += 1
            out.line("database: PROBLEM: the database is damaged: \(integrity.prefix(3).joined(separator: "; "))")
            out.line("  fix: 'pb export > backup.jsonl', move the store aside, then 'pb import backup.jsonl'")
        }
        let payloads = try store.checkPayloads()
        for path in payloads.unsafePaths {
            problems += 1
            out.line("payloads: PROBLEM: \(path)")
        }
        for problem in payloads.problems {
            problems += 1
            var users = problem.itemIDs.map { "item \($0)" }
            users += problem.pasteboards.map {
                $0 == PasteboardName.general.rawValue ? "the clipboard" : "pasteboard '\($0)'"
            }
            let who = users.isEmpty ? "a payload nothing uses" : users.joined(separator: ", ")
            let file = problem.file.map { " (\($0))" } ?? ""
            out.line("payloads: PROBLEM: \(who): \(problem.kind.rawValue), \(problem.detail)\(file)")
            if !problem.itemIDs.isEmpty {
                let ids = problem.itemIDs.map(String.init).joined(separator: " ")
                out.line("  fix: 'pb delete \(ids)' (or copy the same content again)")
            } else if !problem.pasteboards.isEmpty {
                out.line("  fix: copy something new over it")
            }
        }
        if payloads.problems.isEmpty && payloads.unsafePaths.isEmpty {
            let bytes = ByteCountFormatting.string(payloads.checkedBytes)
            out.line("payloads: \(payloads.checkedCount) checked (\(bytes)), all intact")
        }
        // Not a problem: search finds these items too, one by one, until they are indexed.
        let unindexed = try store.unindexedCount()
        if unindexed > 0 {
            out.line(
                "index:    \(unindexed) item\(unindexed == 1 ? "" : "s") not indexed yet (an import's backlog: search "
                    + "finds them all the same; the daemon, or the next 'pb import', indexes them)")
        }
        return problems
    }
}
