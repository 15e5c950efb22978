import Foundation
import PasteboardTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension ReliabilityTests {
    /// What another user, or a log file, can learn: the store and the runtime directory are private whatever the
    /// umask, the socket serves only its own user, and the daemon's log holds no clipboard contents. (That a
    /// secret-marked copy leaves no trace in the database, WAL or blobs is `secretOfferLeavesNoTraceAndIsNotKeptAlive`
    /// in Tests/X11BackendTests/CaptureTests.swift.)
    @Suite struct Security {
        /// `sh -c 'umask 000; exec pb …'`: pb must not rely on the caller's umask.
        static func underOpenUmask(_ arguments: [String]) throws -> (String, [String]) {
            ("/bin/sh", ["-c", "umask 000; exec \"$0\" \"$@\"", try Product.pb.path()] + arguments)
        }

        @Test func storeAndRuntimeFilesArePrivateEvenUnderAnOpenUmask() async throws {
            let harness = try Harness(label: "pbmode")
            let (shell, daemonArguments) = try Self.underOpenUmask(["daemon"])
            let daemon = try harness.sandbox.launch(shell, daemonArguments)
            let socket = harness.runtimeDirectory + "/control.sock"
            let ready = try await eventually(within: .seconds(20)) {
                access(socket, F_OK) == 0 && daemon.stdout.starts(with: Data("Pasteboard daemon".utf8))
                    || !daemon.isRunning
            }
            try #require(ready && daemon.isRunning, "pb daemon: \(daemon.stderr)")
            for payload in [Data("a short text".utf8), Payloads.largeText(count: 200_000)] {  // inline, and a blob file
                let (shell, arguments) = try Self.underOpenUmask(["copy"])
                let result = try await harness.sandbox.launch(shell, arguments, stdin: payload).finish(
                    timeout: .seconds(60))
                try #require(result.succeeded, "\(result)")
            }

            // The daemon holds the database open, so -wal and -shm exist.
            let store = harness.storeDirectory.path
            var expected: [(String, mode_t)] = [
                (store, 0o700), (store + "/blobs", 0o700), (store + "/history.sqlite", 0o600),
                (store + "/history.sqlite-wal", 0o600), (store + "/history.sqlite-shm", 0o600),
                (harness.runtimeDirectory, 0o700), (socket, 0o600), (harness.runtimeDirectory + "/daemon.lock", 0o600),
            ]
            let blobs = harness.blobFiles()
            #expect(blobs.count == 1, "\(blobs)")
            for blob in blobs {
                let shard = store + "/blobs/" + blob.split(separator: "/")[0]
                expected += [(shard, 0o700), (store + "/blobs/" + blob, 0o600)]
            }
            for (path, mode) in expected {
                var info = stat()
                guard stat(path, &info) == 0 else {
                    Issue.record("\(path) is missing")
                    continue
                }
                #expect(info.st_mode & 0o777 == mode, "\(path) has mode \(String(info.st_mode & 0o777, radix: 8))")
                #expect(info.st_uid == getuid(), "\(path) belongs to uid \(info.st_uid)")
            }
            try await harness.stop(daemon: daemon)
        }

        /// Another uid reaching the socket (its directory made traversable on purpose) is cut off without a reply
        /// and the refusal is logged; with the default modes it cannot even connect.
        @Test func socketServesOnlyItsOwnUser() async throws {
            guard getuid() == 0 else {
                throw SetupFailure("This test connects as uid 65534 with setpriv, which needs root (uid \(getuid())).")
            }
            guard let setpriv = executableOnPath("setpriv"),
                FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
            else { throw SetupFailure("setpriv (util-linux) and /usr/bin/python3 are needed.") }
            let harness = try Harness(label: "pbsock")
            let daemon = try await harness.startDaemon()
            let socket = harness.runtimeDirectory + "/control.sock"
            let client = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(5)
                try:
                    s.connect(sys.argv[1])
                except OSError as e:
                    print("connect-failed", e.errno); sys.exit(0)
                try:
                    s.sendall(b'{"command":"stop"}\\n{"command":"status"}\\n')
                    data = s.recv(65536)
                except OSError as e:
                    print("io-failed", e.errno); sys.exit(0)
                print(("reply " + data.decode(errors="replace")) if data else "closed")
                """
            func asNobody() async throws -> String {
                let result = try await harness.sandbox.run(
                    setpriv,
                    ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", client, socket],
                    timeout: .seconds(20))
                guard result.succeeded else { throw CommandFailed(result: result) }
                return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }

            #expect(try await asNobody() == "connect-failed \(EACCES)", "the runtime directory let another user in")

            // A careless chmod: the directory and the socket open to everyone. The peer check still holds.
            chmod(harness.sandbox.root.path, 0o711)
            chmod(harness.runtimeDirectory, 0o711)
            chmod(socket, 0o666)
            let outcome = try await asNobody()
            #expect(outcome == "closed" || outcome.hasPrefix("io-failed"), "another user got: \(outcome)")
            let logged = try await eventually(within: .seconds(5)) {
                daemon.stderr.contains("refused a connection from another user")
            }
            #expect(logged, "no refusal in the daemon's log: \(daemon.stderr)")
            #expect(daemon.isRunning, "another user's stop request stopped the daemon")
            #expect(RawControlSocket.send(["command": "ping"], to: socket)?["ok"] as? Bool == true)
            try await harness.stop(daemon: daemon)
        }

        /// Captured, restored, ignored and expiring copies: the daemon's default log and the event stream name
        /// items by id, type and size, never by content.
        @Test func daemonLogNeverContainsClipboardContents() async throws {
            let harness = try await Harness(label: "pblog", display: "the daemon log test")
            try harness.writeConfig("ignore-text = ^IGNORED-\n")
            let daemon = try await harness.startDaemon()
            let watch = try await harness.startWatch()
            let marker = UUID().uuidString.replacingOccurrences(of: "-", with: "")

            try await harness.xclipCopy(Data("captured-\(marker)".utf8))
            #expect(try await eventually(within: .seconds(10)) { watch.captures.count >= 1 }, "\(daemon.stderr)")
            try await harness.xclipCopy(Data("IGNORED-\(marker)".utf8))
            #expect(try await eventually(within: .seconds(10)) { daemon.stderr.contains("ignore-text rule") })
            try await harness.copy("pb-copy-\(marker)")
            try await harness.copy("expiring-\(marker)", ["--expire", "1s"])
            let captured = try #require(try await harness.search("captured-\(marker)").first)
            try await harness.pbSucceeding(["restore", String(captured.id)])
            #expect(
                try await eventually(within: .seconds(10)) { daemon.stderr.contains("expired") }, "\(daemon.stderr)")
            try await harness.stop(daemon: daemon)

            let log = daemon.stderr + String(decoding: daemon.stdout, as: UTF8.self)
            #expect(log.contains("recorded item"), "the daemon logged nothing: \(log)")
            #expect(!log.contains(marker), "clipboard contents in the daemon's log: \(log)")
            #expect(
                !String(decoding: watch.process.stdout, as: UTF8.self).contains(marker), "contents in the event stream")
        }

        /// The ways an item leaves the history.
        enum Deletion: String, CaseIterable, Sendable {
            case delete, clear, expire, prune, pruneVacuum
        }

        /// A marker copied on a private X display (by xclip, captured by the daemon, and by `pb copy`, served by
        /// the daemon, large enough to be a payload file), then deleted while the daemon runs: afterwards no byte of
        /// any file under the store (database, -wal, -shm, payloads) holds it, and the clipboard does not serve it.
        @Test(arguments: Deletion.allCases)
        func deletedTextLeavesNoTraceWhileTheDaemonRuns(_ deletion: Deletion) async throws {
            let harness = try await Harness(label: "pbwipe", display: "the forensic deletion test")
            let daemon = try await harness.startDaemon()
            let marker = "PB-FORENSIC-\(deletion.rawValue)-" + UUID().uuidString
            try await harness.xclipCopy(Data("an older neighbour".utf8))
            #expect(try await eventually(within: .seconds(10)) { try await !harness.search("older neighbour").isEmpty })
            let expiring = deletion == .expire ? ["--expire", "6s"] : []
            if deletion == .expire {
                try await harness.copy(marker, expiring)
            } else {
                try await harness.xclipCopy(Data(marker.utf8))
            }
            #expect(try await eventually(within: .seconds(10)) { try await harness.search(marker).count == 1 })
            try await harness.pbSucceeding(
                ["copy"] + expiring, stdin: Data("\(marker)\n".utf8) + Payloads.largeText(count: 100_000))
            let ids = try await harness.search(marker).map(\.id)
            try #require(ids.count == 2, "\(ids)")
            #expect(try await harness.pbSucceeding(["paste"]).stdout.starts(with: Data(marker.utf8)))

            switch deletion {
            case .delete: try await harness.pbSucceeding(["delete"] + ids.map(String.init))
            case .clear: try await harness.pbSucceeding(["clear"])
            case .expire:
                // Counted with sqlite3: pb commands expire items themselves when they open the store.
                let expired = try await eventually(within: .seconds(30), every: .milliseconds(100)) {
                    try await harness.itemCount() == 1
                }
                #expect(expired, "the daemon did not expire the items: \(daemon.stderr)")
            case .prune, .pruneVacuum:
                try await harness.copy("the newest, kept")
                try await harness.pbSucceeding(
                    ["prune", "--max-items", "1"] + (deletion == .pruneVacuum ? ["--vacuum"] : []))
            }

            #expect(daemon.isRunning, "pb daemon: \(daemon.stderr)")
            var files: [String] = []
            let walker = FileManager.default.enumerator(atPath: harness.storeDirectory.path)
            while let relative = walker?.nextObject() as? String {
                let path = harness.storeDirectory.path + "/" + relative
                var info = stat()
                guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                files.append(relative)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(deletion): the deleted text is in \(relative)")
            }
            #expect(files.contains("history.sqlite") && files.contains("history.sqlite-wal"), "\(files)")
            let paste = try await harness.pb(["paste"], timeout: .seconds(20))
            #expect(paste.stdout.range(of: Data(marker.utf8)) == nil, "\(deletion): the clipboard still serves it")
            if deletion != .prune && deletion != .pruneVacuum {
                #expect(!paste.succeeded, "\(deletion): the clipboard is not empty: \(paste)")
            }
            try await harness.stop(daemon: daemon)
            #expect(!daemon.stderr.contains(marker))
        }

        /// Retention after each capture leaves the wiping for later, so as not to rewrite the search index on every
        /// copy: the daemon wipes once copies pause.
        @Test func textRetentionRetiredIsWipedOnceCopiesPause() async throws {
            let harness = try await Harness(label: "pbretire", display: "the retention wiping test")
            try harness.writeConfig("max-items = 1\n")
            let daemon = try await harness.startDaemon()
            let marker = "PB-FORENSIC-retired-" + UUID().uuidString
            try await harness.xclipCopy(Data(marker.utf8))
            #expect(try await eventually(within: .seconds(10)) { try await harness.search(marker).count == 1 })
            try await harness.xclipCopy(Data("the next copy retires the marker".utf8))
            #expect(try await eventually(within: .seconds(10)) { try await harness.search(marker).isEmpty })
            func holders() throws -> [String] {
                var found: [String] = []
                let walker = FileManager.default.enumerator(atPath: harness.storeDirectory.path)
                while let relative = walker?.nextObject() as? String {
                    let path = harness.storeDirectory.path + "/" + relative
                    var info = stat()
                    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                    if try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(marker.utf8)) != nil {
                        found.append(relative)
                    }
                }
                return found
            }
            let wiped = try await eventually(within: .seconds(15), every: .milliseconds(200)) { try holders().isEmpty }
            let left = try holders()
            #expect(wiped, "still in \(left): \(daemon.stderr)")
            try await harness.stop(daemon: daemon)
        }
    }
}
