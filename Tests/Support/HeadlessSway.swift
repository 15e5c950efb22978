public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private headless sway: a Wayland compositor with wlr data-control, no outputs to see, no input devices.
///
/// Sway refuses to run as root, so as root it runs as an unprivileged user (`pbsway`, created when missing) with
/// a runtime directory of its own; the test process, as root, connects to its socket by full path. It runs until
/// this test process exits (a small shell stays behind with it and stops it then), so a suite can share one:
/// `HeadlessSway.shared(requiredBy:)`. A missing sway fails the test with a `SetupFailure`, never skips it.
///
/// A test may start one of its own instead: with XWayland (`x11Display` is then its X display, which root may
/// use), or in a directory it keeps (`in:`), so that a second compositor comes up on the first one's socket.
///
/// ```swift
/// let sway = try await HeadlessSway.shared(requiredBy: "the Wayland backend tests")
/// environment["WAYLAND_DISPLAY"] = sway.socketPath
/// ```
public final class HeadlessSway: Sendable {
    /// The unprivileged user sway runs as when the tests run as root.
    public static let user = "pbsway"

    /// The compositor's socket, a full path: what `WAYLAND_DISPLAY` is set to.
    public let socketPath: String
    /// The directory everything of this compositor lives in (removed when the test process exits).
    public let root: URL
    /// The XWayland display (`:N`), when started with XWayland.
    public let x11Display: String?
    private let watchdog: ChildProcess

    private static let instance = SharedInstance()

    /// The compositor this test process shares, started on first use.
    public static func shared(requiredBy tests: String) async throws -> HeadlessSway {
        try await instance.get(requiredBy: tests)
    }

    private actor SharedInstance {
        var started: Result<HeadlessSway, any Error>?

        func get(requiredBy tests: String) async throws -> HeadlessSway {
            if let started { return try started.get() }
            do {
                let sway = try await HeadlessSway(requiredBy: tests)
                started = .success(sway)
                return sway
            } catch {
                started = .failure(error)
                throw error
            }
        }
    }

    /// Starts sway and waits (at most 15 s) until its socket accepts connections.
    ///
    /// - Parameters:
    ///   - xwayland: Also start XWayland (`xwayland force`) and let root's clients on it (`xhost`): sway copies
    ///     between X11 and Wayland selections, though only while an X11 window has the focus.
    ///   - directory: Where to run, kept when this compositor stops (the caller removes it); nil: a fresh one,
    ///     removed with the compositor.
    public init(requiredBy tests: String, xwayland: Bool = false, in directory: URL? = nil) async throws {
        let required = ProcessInfo.processInfo.environment["PB_REQUIRE_DISPLAY"] == "1" ? " (PB_REQUIRE_DISPLAY=1)" : ""
        guard let sway = executableOnPath("sway") else {
            throw SetupFailure(
                "sway is not installed, so \(tests) cannot run\(required). "
                    + "Install it with 'apt-get install -y sway wl-clipboard'.")
        }
        let isRoot = getuid() == 0
        if isRoot { try await Self.createUserIfMissing() }
        root =
            directory
            ?? URL(fileURLWithPath: "/tmp/pbsway-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        let runtime = root.appendingPathComponent("run", isDirectory: true)
        let io = root.appendingPathComponent("io", isDirectory: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: io, withIntermediateDirectories: true)
        chmod(root.path, 0o755)
        chmod(runtime.path, 0o700)
        let config = root.appendingPathComponent("sway.config")
        // No bar, no background, no key bindings: nothing but the compositor (and XWayland when asked for).
        var configuration = "# Pasteboard's test compositor\n"
        let x11DisplayFile = runtime.appendingPathComponent("x11-display")
        if xwayland {
            guard executableOnPath("Xwayland") != nil, executableOnPath("xhost") != nil else {
                throw SetupFailure(
                    "Xwayland or xhost is not installed, so \(tests) cannot run\(required). "
                        + "Install them with 'apt-get install -y xwayland x11-xserver-utils'.")
            }
            // XWayland lets only sway's user in: root's clients are added, then the display is told.
            let ready = root.appendingPathComponent("xwayland-ready.sh")
            try Data(
                """
                for attempt in $(seq 100); do xhost +si:localuser:root >/dev/null 2>&1 && break; sleep 0.1; done
                echo "$DISPLAY" > "$XDG_RUNTIME_DIR/x11-display.new" && mv "$XDG_RUNTIME_DIR/x11-display.new" "$XDG_RUNTIME_DIR/x11-display"

                """.utf8
            ).write(to: ready)
            chmod(ready.path, 0o644)
            try? FileManager.default.removeItem(at: x11DisplayFile)  // a former compositor's in a kept directory
            configuration += "xwayland force\nexec sh \(ready.path)\n"
        } else {
            configuration += "xwayland disable\n"
        }
        try Data(configuration.utf8).write(to: config)
        chmod(config.path, 0o644)
        if isRoot {
            guard let account = getpwnam(Self.user) else { throw SetupFailure("The user \(Self.user) is missing.") }
            chown(runtime.path, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        let environment = [
            "XDG_RUNTIME_DIR=\(runtime.path)", "WLR_BACKENDS=headless", "WLR_RENDERER=pixman",
            "WLR_LIBINPUT_NO_DEVICES=1", "PATH=/usr/bin:/bin",
        ]
        let command = (isRoot ? ["runuser", "-u", Self.user, "--"] : []) + ["env", "-i"] + environment + [sway, "-c", config.path]
        // The shell stops sway (by the id in its IPC socket's name) and removes the directory once this process
        // is gone, or when sway exits by itself.
        let script = """
            "$@" & server=$!
            stop() {
                for socket in "\(runtime.path)"/sway-ipc.*.sock; do
                    pid=${socket%.sock}; pid=${pid##*.}
                    [ -n "$pid" ] && kill "$pid" 2>/dev/null
                done
                kill $server 2>/dev/null; wait $server\(directory == nil ? "; rm -rf \"\(root.path)\"" : "")
            }
            trap 'stop; exit 0' TERM INT
            while kill -0 \(getpid()) 2>/dev/null && kill -0 $server 2>/dev/null; do sleep 0.2; done
            stop
            """
        watchdog = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", script, "sh"] + command,
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], stdin: nil, ioDirectory: io)
        var found: String?
        let up = try await eventually(within: .seconds(15), every: .milliseconds(20)) { [watchdog] in
            if !watchdog.isRunning { return true }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: runtime.path)) ?? []
            guard let name = names.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }) else {
                return false
            }
            let path = runtime.appendingPathComponent(name).path
            guard RawControlSocket.canConnect(to: path) else { return false }
            found = path
            return true
        }
        guard up, watchdog.isRunning, let found else {
            watchdog.terminate(grace: .seconds(2))
            throw SetupFailure("Headless sway did not start within 15 s: \(watchdog.stderr.suffix(1500))")
        }
        socketPath = found
        guard xwayland else {
            x11Display = nil
            return
        }
        var display: String?
        _ = try await eventually(within: .seconds(15), every: .milliseconds(20)) { [watchdog] in
            if !watchdog.isRunning { return true }
            display = (try? String(contentsOf: x11DisplayFile, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return display?.isEmpty == false
        }
        guard let display, !display.isEmpty, watchdog.isRunning else {
            watchdog.terminate(grace: .seconds(2))
            throw SetupFailure(
                "XWayland did not start under headless sway within 15 s: \(watchdog.stderr.suffix(1500))")
        }
        x11Display = display
    }

    /// Stops the compositor (and its XWayland) now, waiting up to `grace`; its clients lose their connection.
    public func stop(grace: Duration = .seconds(5)) {
        watchdog.terminate(grace: grace)
    }

    /// Whether the compositor still runs.
    public var isRunning: Bool { watchdog.isRunning }

    deinit {
        watchdog.terminate(grace: .seconds(3))
    }

    /// sway's own diagnostics.
    public var log: String { watchdog.stderr }

    /// Creates the unprivileged user sway runs as.
    private static func createUserIfMissing() async throws {
        if getpwnam(user) != nil { return }
        guard let useradd = executableOnPath("useradd", path: "/usr/sbin:/sbin:/usr/bin") else {
            throw SetupFailure("useradd is missing: cannot create the user \(user) that headless sway runs as.")
        }
        let io = URL(fileURLWithPath: "/tmp/pbsway-useradd-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: io, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: io) }  // best effort: two small log files
        let process = try ChildProcess(
            executable: useradd, arguments: ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], stdin: nil, ioDirectory: io)
        let result = try await process.finish(timeout: .seconds(30))
        // Another test process may have created it meanwhile (useradd then exits 9).
        guard result.succeeded || getpwnam(user) != nil else {
            throw SetupFailure("Could not create the user \(user) for headless sway: \(result)")
        }
    }
}
