import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// Issue 27, finding 8: about 20,000 half-open connections at the daemon's file limit made it spin at 100 % CPU
    /// (the listener stayed readable while `accept` failed with EMFILE) and locked every client out. Now silent
    /// connections are closed after a few seconds, connections are capped per process and in all, and a failing
    /// `accept` rests the listener.
    @Suite struct ConnectionFlood {
        /// Opens connections from `procs` processes (each until it holds `per`, for at most 8 s) and a
        /// subscribed watcher; prints `flooded N`, then after 6 s a JSON line: how many of the first process's
        /// connections the daemon closed, and whether the watcher is still open. Holds everything until killed.
        static let flood = """
            import ctypes, json, os, resource, socket, sys, time
            path, procs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
            resource.setrlimit(resource.RLIMIT_NOFILE, (per + 64, per + 64))
            watcher = socket.socket(socket.AF_UNIX); watcher.connect(path)
            watcher.sendall(b'{"command":"watch"}\\n'); watcher.settimeout(5); watcher.recv(4096)
            def flood():
                held, until = [], time.time() + 8
                while len(held) < per and time.time() < until:
                    s = socket.socket(socket.AF_UNIX); s.setblocking(False)
                    try:
                        s.connect(path); held.append(s)
                    except OSError:  # the listener's queue is full: wait for the daemon to take some
                        s.close(); time.sleep(0.001)
                return held
            for _ in range(procs - 1):
                if os.fork() == 0:
                    ctypes.CDLL(None).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: gone with the parent
                    flood(); time.sleep(120); os._exit(0)
            held = flood()
            print("flooded", len(held), flush=True)
            time.sleep(6)
            def closed(s):
                try:
                    return s.recv(1, socket.MSG_DONTWAIT) == b""
                except BlockingIOError:
                    return False
                except OSError:
                    return True
            watcher.setblocking(False)
            print(json.dumps({"held": len(held), "closed": sum(closed(s) for s in held),
                              "watcherOpen": not closed(watcher)}), flush=True)
            time.sleep(120)
            """

        /// The daemon's CPU time so far (user + system), from /proc/PID/stat.
        static func cpuSeconds(_ pid: pid_t) throws -> Double {
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
            return Double((Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }

        @Test func halfOpenConnectionsAtTheFileLimitNeitherLockOutClientsNorSpin() async throws {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
                throw SetupFailure("/usr/bin/python3 is needed to open the connections.")
            }
            let harness = try Harness(label: "pbflood")
            let socket = harness.runtimeDirectory + "/control.sock"
            // A daemon with 256 descriptors: the flood below holds many times that.
            let daemon = try harness.sandbox.launch(
                "/bin/sh", ["-c", "ulimit -n 256 && exec \"$0\" daemon", try Product.pb.path()])
            defer { daemon.terminate(grace: .milliseconds(500)) }
            try #require(
                try await eventually(within: .seconds(20)) {
                    RawControlSocket.canConnect(to: socket) || !daemon.isRunning
                } && daemon.isRunning, "pb daemon: \(daemon.stderr)")
            let flood = try harness.sandbox.launch("/usr/bin/python3", ["-c", Self.flood, socket, "8", "3000"])
            defer { flood.terminate(grace: .milliseconds(200)) }
            try #require(
                try await eventually(within: .seconds(60)) {
                    String(decoding: flood.stdout, as: UTF8.self).contains("flooded") || !flood.isRunning
                }, "the flood did not start: \(flood.stderr)")

            let cpuBefore = try Self.cpuSeconds(daemon.pid)
            let started = ContinuousClock.now
            for _ in 0..<3 {
                let asked = ContinuousClock.now
                let doctor = try await harness.pb(["doctor"])
                let took = ContinuousClock.now - asked
                #expect(took < .seconds(2), "pb doctor took \(took)")
                #expect(doctor.output.contains("daemon:   running (pid"), "\(doctor)")
                let pinged = ContinuousClock.now
                #expect(RawControlSocket.send(["command": "ping"], to: socket)?["ok"] as? Bool == true)
                #expect(ContinuousClock.now - pinged < .seconds(2))
                try await Task.sleep(for: .seconds(1))
            }
            let elapsed = ContinuousClock.now - started
            let cpu = try Self.cpuSeconds(daemon.pid) - cpuBefore
            #expect(cpu < 0.5, "the daemon used \(cpu) s of CPU in \(elapsed): it spins")

            try #require(
                try await eventually(within: .seconds(20)) {
                    String(decoding: flood.stdout, as: UTF8.self).contains("{") || !flood.isRunning
                }, "\(flood.stderr)")
            let report = String(decoding: flood.stdout, as: UTF8.self).split(separator: "\n").last ?? ""
            let outcome = try #require(
                try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any], "\(report)")
            let held = outcome["held"] as? Int ?? 0
            let closed = outcome["closed"] as? Int ?? 0
            #expect(held >= 100, "the flood got few connections in: \(outcome)")
            // All but those still queued behind the listener (its backlog) were closed: over a cap, or silent.
            #expect(closed >= held - 20, "silent connections stay open: \(outcome)")
            #expect(outcome["watcherOpen"] as? Bool == true, "a subscribed watcher was closed: \(outcome)")
            #expect(daemon.stderr.contains("control connections over the limits")
                || daemon.stderr.contains("control connection over the limits"), "\(daemon.stderr.suffix(1000))")
            flood.terminate(grace: .milliseconds(200))
            _ = try await flood.waitForExit(timeout: .seconds(5))

            // The file limit below the connection cap (lowered under the running daemon): accept fails with EMFILE.
            guard let prlimit = executableOnPath("prlimit") else {
                throw SetupFailure("prlimit (util-linux) is needed.")
            }
            let lowered = try await harness.sandbox.run(prlimit, ["--pid", String(daemon.pid), "--nofile=40:40"])
            try #require(lowered.succeeded, "\(lowered)")
            let second = try harness.sandbox.launch("/usr/bin/python3", ["-c", Self.flood, socket, "4", "1000"])
            defer { second.terminate(grace: .milliseconds(200)) }
            try #require(
                try await eventually(within: .seconds(60)) {
                    String(decoding: second.stdout, as: UTF8.self).contains("flooded") || !second.isRunning
                }, "the second flood did not start: \(second.stderr)")
            let cpuAtLimit = try Self.cpuSeconds(daemon.pid)
            for _ in 0..<3 {
                let asked = ContinuousClock.now
                let doctor = try await harness.pb(["doctor"])
                let took = ContinuousClock.now - asked
                #expect(took < .seconds(2), "pb doctor took \(took) at the file limit")
                #expect(doctor.output.contains("daemon:   running (pid"), "\(doctor)")
                try await Task.sleep(for: .seconds(1))
            }
            let cpuSpent = try Self.cpuSeconds(daemon.pid) - cpuAtLimit
            #expect(cpuSpent < 0.5, "the daemon used \(cpuSpent) s of CPU at the file limit: it spins")
            #expect(daemon.stderr.contains("could not accept a control connection"), "\(daemon.stderr.suffix(1000))")
            second.terminate(grace: .milliseconds(200))
            daemon.send(SIGTERM)
            #expect(try await daemon.waitForExit(timeout: .seconds(10))?.status == 0, "\(daemon.stderr.suffix(1000))")
        }
    }
}
