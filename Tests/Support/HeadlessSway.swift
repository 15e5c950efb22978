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
    public init(requiredBy tests: String) async throws {
        let required = ProcessInfo.processInfo.environment["PB_REQUIRE_DISPLAY"] == "1" ? " (PB_REQUIRE_DISPLAY=1)" : ""
        guard let sway = executableOnPath("sway") else {
            throw SetupFailure(
                "sway is not installed, so \(tests) cannot run\(required). "
                    + "Install it with 'apt-get install -y sway wl-clipboard'.")
        }
        let isRoot = getuid() == 0
        if isRoot { try await Self.createUserIfMissing() }
        root = URL(fileURLWithPath: "/tmp/pbsway-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        let runtime = root.appendingPathComponent("run", isDirectory: true)
        let io = root.appendingPathComponent("io", isDirectory: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: io, withIntermediateDirectories: true)
        chmod(root.path, 0o755)
        chmod(runtime.path, 0o700)
        let config = root.appendingPathComponent("sway.config")
        // No bar, no background, no key bindings: nothing but the compositor.
        try Data("# Pasteboard's test compositor\n".utf8).write(to: config)
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
                kill $server 2>/dev/null; wait $server; rm -rf "\(root.path)"
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
    }

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
