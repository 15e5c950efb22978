import Foundation
import PasteboardControl
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one socket helper, over real sockets in a temporary runtime directory.
@Suite struct UnixSocketTests {
    let runtime: RuntimeDirectory

    init() throws {
        runtime = RuntimeDirectory(path: FileManager.default.temporaryDirectory.appendingPathComponent("pb-sock-\(UUID().uuidString)").path)
        try runtime.prepare()
    }

    @Test func theRuntimeDirectoryAndSocketArePrivate() throws {
        let listener = try UnixSocket.listen(at: runtime.socketPath)
        var info = stat()
        #expect(stat(runtime.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(runtime.socketPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        withExtendedLifetime(listener) {}
    }

    @Test func linesGoBothWaysAndPeersAreKnown() throws {
        let listener = try UnixSocket.listen(at: runtime.socketPath)
        let client = try UnixSocket.connect(to: runtime.socketPath)
        var server: UnixSocket?
        for _ in 0..<100 where server == nil {
            server = listener.accept()
            if server == nil { usleep(1000) }
        }
        let accepted = try #require(server)
        #expect(accepted.peerUserID == getuid())
        try client.sendAll(Data("one\ntwo\n".utf8))
        var received = Data()
        for _ in 0..<100 where received.count < 8 {
            if let chunk = try accepted.receive() { received.append(chunk) } else { usleep(1000) }
        }
        #expect(received == Data("one\ntwo\n".utf8))
        _ = accepted.sendAvailable(Data("reply\npartial".utf8))
        client.setReceiveTimeout(2)
        #expect(try client.readLine() == Data("reply".utf8))
        #expect(throws: ControlError.self) { try client.readLine() }  // "partial" never ends: the wait times out
    }

    @Test func connectingWhereNothingListensSaysNotRunning() {
        let error = #expect(throws: ControlError.self) { try UnixSocket.connect(to: runtime.socketPath) }
        #expect(error?.code == .notRunning)
        let client = ControlClient(runtime: runtime)
        #expect(!client.isRunning)
        #expect(throws: Never.self) { try client.announce(ControlEvent(.pinned)) }
        let refused = #expect(throws: ControlError.self) { try client.perform(.ping) }
        #expect(refused?.message.contains("start one with 'pb daemon'") == true)
    }

    @Test func aTooLongPathIsRefusedWithAFix() {
        let long = RuntimeDirectory(path: "/" + String(repeating: "d", count: 120))
        let error = #expect(throws: ControlError.self) { try UnixSocket.listen(at: long.socketPath) }
        #expect(error?.message.contains("set XDG_RUNTIME_DIR to a shorter directory") == true)
    }

    @Test func theRuntimeDirectoryFollowsTheEnvironment() {
        #expect(RuntimeDirectory.standard(environment: ["PB_RUNTIME_DIR": "/run/x"]).path == "/run/x")
        #expect(RuntimeDirectory.standard(environment: ["XDG_RUNTIME_DIR": "/run/user/7"]).socketPath == "/run/user/7/pasteboard/control.sock")
        #expect(RuntimeDirectory.standard(environment: ["XDG_RUNTIME_DIR": "relative"]).path == "/tmp/pasteboard-\(getuid())")
    }
}
