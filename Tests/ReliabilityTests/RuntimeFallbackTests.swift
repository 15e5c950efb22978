import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// Issue 27, finding 9: without `XDG_RUNTIME_DIR`, the runtime directory is `/tmp/pasteboard-UID`, and another
    /// user could make it first with a socket of their own inside: the victim's `pb copy` handed its item to that
    /// socket, and the real daemon refused to start. Now the directory is refused unless it is a real directory of
    /// the user's own with mode 0700, and a client refuses a listener running as another user.
    ///
    /// Run as root: the victim is an unused uid (so that its `/tmp/pasteboard-UID` is the test's own), the squatter
    /// uid 65534, both through `setpriv`; the victim copies on a private Xvfb, where a copy goes to the daemon.
    @Suite struct RuntimeFallback {
        static let squatter = """
            import os, socket, sys
            path, log = sys.argv[1], sys.argv[2]
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path); os.chmod(path, 0o777); s.listen(16)
            print("listening", flush=True)
            while True:
                c, _ = s.accept(); c.settimeout(2)
                try: data = c.recv(65536)
                except OSError: data = b""
                with open(log, "ab") as f: f.write(b"connection " + data + b"\\n")
                try: c.sendall(b'{"ok":true}\\n')
                except OSError: pass
                c.close()
            """

        @Test func aSquattedFallbackRuntimeDirectoryIsRefusedAndNeverTalkedTo() async throws {
            guard getuid() == 0 else {
                throw SetupFailure("This test runs pb and a squatter as other uids with setpriv, which needs root.")
            }
            guard let setpriv = executableOnPath("setpriv"),
                FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            else { throw SetupFailure("setpriv (util-linux) and /usr/bin/python3 are needed.") }
            let harness = try await Harness(label: "pbsquat", display: "the runtime squatting test")
            let sandbox = harness.sandbox
            var victim: uid_t = 0
            var fallback = ""
            repeat {
                victim = uid_t.random(in: 30_000...59_999)
                fallback = "/tmp/pasteboard-\(victim)"
            } while access(fallback, F_OK) == 0 || getpwuid(victim) != nil
            defer { try? FileManager.default.removeItem(atPath: fallback) }  // best effort: the test's own directory
            // The victim's home, data and configuration are its own; the root stays traversable.
            chmod(sandbox.root.path, 0o755)
            for name in ["data", "config", "home", "state", "run"] {
                chown(sandbox.root.appendingPathComponent(name).path, victim, victim)
            }
            let log = try sandbox.file(Data(), name: "squatter.log")
            chmod(log.path, 0o666)
            let pb = try Product.pb.path()
            func asVictim(_ arguments: [String], stdin: Data? = nil) async throws -> ProcessResult {
                try await sandbox.launch(
                    setpriv, ["--reuid=\(victim)", "--regid=\(victim)", "--clear-groups", pb] + arguments, stdin: stdin,
                    environment: ["XDG_RUNTIME_DIR": nil, "PB_RUNTIME_DIR": nil]
                ).finish(timeout: .seconds(20))
            }

            // Another user's directory, with a listening socket in it.
            #expect(mkdir(fallback, 0o755) == 0 && chown(fallback, 65534, 65534) == 0 && chmod(fallback, 0o755) == 0)
            let squatter = try sandbox.launch(
                setpriv,
                ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", Self.squatter,
                    fallback + "/control.sock", log.path])
            defer { squatter.terminate(grace: .milliseconds(200)) }
            try #require(
                try await eventually(within: .seconds(10)) { squatter.stdout.starts(with: Data("listening".utf8)) },
                "the squatter did not start: \(squatter.stderr)")
            let copy = try await asVictim(["copy"], stdin: Data("a secret for the daemon".utf8))
            #expect(copy.status == 1, "\(copy)")
            let owned = "The runtime directory \(fallback) belongs to another user (uid 65534)"
            #expect(copy.stderr.contains(owned), "\(copy)")
            let daemon = try await asVictim(["daemon"])
            #expect(daemon.status == 1, "\(daemon)")
            #expect(daemon.stderr.contains("belongs to another user (uid 65534)"), "\(daemon)")
            let watch = try await asVictim(["watch"])
            #expect(watch.status == 1 && watch.stderr.contains("belongs to another user"), "\(watch)")
            let doctor = try await asVictim(["doctor"])
            #expect(doctor.status == 1, "\(doctor)")
            #expect(
                doctor.output.contains("daemon:   PROBLEM: The runtime directory \(fallback) belongs to another user"),
                "\(doctor)")
            squatter.terminate(grace: .milliseconds(200))
            _ = try await squatter.waitForExit(timeout: .seconds(5))
            let heard = try String(contentsOf: log, encoding: .utf8)
            #expect(heard.isEmpty, "the squatter's socket was talked to: \(heard)")

            // The victim's own directory, but open to others: refused, not repaired.
            try FileManager.default.removeItem(atPath: fallback)
            #expect(mkdir(fallback, 0o777) == 0 && chown(fallback, victim, victim) == 0 && chmod(fallback, 0o777) == 0)
            let open = try await asVictim(["daemon"])
            #expect(open.status == 1 && open.stderr.contains("lets other users in (mode 777)"), "\(open)")
            var info = stat()
            #expect(stat(fallback, &info) == 0 && info.st_mode & 0o777 == 0o777, "left as it was")

            // A symbolic link to a directory of the victim's own: not followed.
            try FileManager.default.removeItem(atPath: fallback)
            let target = sandbox.root.appendingPathComponent("home").path
            #expect(symlink(target, fallback) == 0)
            let linked = try await asVictim(["daemon"])
            #expect(linked.status == 1 && linked.stderr.contains("is a symbolic link"), "\(linked)")
            #expect(access(target + "/control.sock", F_OK) != 0, "nothing was made through the link")

            // Nothing there: the daemon makes it, 0700, and the victim's copy goes through it.
            try FileManager.default.removeItem(atPath: fallback)
            let own = try sandbox.launch(
                setpriv, ["--reuid=\(victim)", "--regid=\(victim)", "--clear-groups", pb, "daemon"],
                environment: ["XDG_RUNTIME_DIR": nil, "PB_RUNTIME_DIR": nil])
            defer { own.terminate(grace: .milliseconds(500)) }
            let listening = try await eventually(within: .seconds(20)) {
                access(fallback + "/control.sock", F_OK) == 0 || !own.isRunning
            }
            try #require(listening && own.isRunning, "pb daemon: \(own.stderr)")
            #expect(stat(fallback, &info) == 0 && info.st_mode & 0o777 == 0o700 && info.st_uid == victim)
            let served = try await asVictim(["copy"], stdin: Data("through the real daemon".utf8))
            #expect(served.succeeded, "\(served)")
            own.send(SIGTERM)
            #expect(try await own.waitForExit(timeout: .seconds(10))?.status == 0, "\(own.stderr)")
        }
    }
}
