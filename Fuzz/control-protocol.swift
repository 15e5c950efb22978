// libFuzzer target: the daemon's control protocol (docs/protocol.md), through its real socket.
//
// A headless `Daemon` (a store in a temporary directory, no display) runs on a thread of this process; each
// input is sent on a fresh connection as it is, plus a final newline, and every line must get one JSON reply
// (`{"ok":…}`; a `watch` also brings events). `ControlRequest.parse` is also called directly on each line, the
// way the daemon slices its buffer. An input that stops the daemon (`{"command":"stop"}`) is fine: it is
// started again for the next input.
//
// Built and run by scripts/fuzz.sh; seeds and a dictionary in Fuzz/corpus/control-protocol/ and
// Fuzz/control-protocol.dict.
import Foundation
import PasteboardControl
import PasteboardHistory
import Synchronization

@testable import PasteboardDaemon

#if canImport(Glibc)
    import Glibc
#endif

private let directory = "/tmp/pb-fuzz-control-\(getpid())"
private let socketPath = directory + "/run/control.sock"
/// Whether the daemon thread is inside `Daemon.run`.
private let isRunning = Atomic<Bool>(false)
/// The daemon's last log lines, for failure messages.
private let daemonLog = Mutex<[String]>([])

/// Removes the daemon's directory when the fuzzer exits (the daemon thread is still in it; nothing reads it then).
private let cleanUpAtExit: Void = {
    atexit { try? FileManager.default.removeItem(atPath: directory) }
}()

private func startDaemon() {
    _ = cleanUpAtExit
    let ready = DispatchSemaphore(value: 0)
    isRunning.store(true, ordering: .sequentiallyConsistent)
    let thread = Thread {
        let daemon = Daemon(
            location: StoreLocation(directory: URL(fileURLWithPath: directory + "/store")),
            runtime: RuntimeDirectory(path: directory + "/run"),
            log: { line in daemonLog.withLock { $0 = Array(($0 + [line]).suffix(20)) } })
        do {
            try daemon.run(onReady: { ready.signal() })
        } catch {
            fatalError("the daemon failed: \(error)")
        }
        isRunning.store(false, ordering: .sequentiallyConsistent)
        ready.signal()
    }
    thread.start()
    ready.wait()
}

private func connectToDaemon() -> UnixSocket {
    for _ in 0..<500 {
        if !isRunning.load(ordering: .sequentiallyConsistent) {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            startDaemon()
        }
        if let socket = try? UnixSocket.connect(to: socketPath) { return socket }
        usleep(10_000)  // a daemon told to stop is on its way out: wait for it, then start another
    }
    fatalError("cannot connect to the daemon at \(socketPath)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlProtocol(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var request = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    request.append(0x0A)
    let lines = request.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
    for line in lines { _ = try? ControlRequest.parse(Data(line)) }  // each line, as the daemon takes it

    let connection = connectToDaemon()
    let fd = connection.fileDescriptor
    defer { withExtendedLifetime(connection) {} }  // it closes the descriptor when released
    var sent = 0
    while sent < request.count {
        let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return 0 }  // the daemon closed the connection (a stop, or a line over 1 MiB)
        sent += count
    }
    // One reply per line, each a JSON object; read until they are all in, the daemon hangs up, or 10 s pass
    // without a reply. (libFuzzer's SIGALRM, every half -timeout, interrupts poll and recv: EINTR is retried.)
    var received = Data()
    var replies = 0
    var buffer = [UInt8](repeating: 0, count: 65536)
    while replies < lines.count {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .seconds(10)
        var ready: Int32 = -1
        while ready < 0 && ContinuousClock.now < deadline {
            ready = poll(&descriptor, 1, 10_000)
            if ready < 0 && errno != EINTR { fatalError("poll failed: errno \(errno)") }
        }
        guard ready > 0 else {
            // Is the daemon stuck, or only this connection?
            let probe = connectToDaemon()
            let ping = Array(#"{"command":"ping"}"#.utf8) + [0x0A]
            _ = send(probe.fileDescriptor, ping, ping.count, Int32(MSG_NOSIGNAL))
            var probeDescriptor = pollfd(fd: probe.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let alive = poll(&probeDescriptor, 1, 2000) > 0
            fatalError(
                "no reply within 10 s: \(replies) of \(lines.count) lines answered; the daemon "
                    + (alive ? "answers another connection" : "answers nobody")
                    + "; its log: \(daemonLog.withLock { $0 })")
        }
        let count = recv(fd, &buffer, buffer.count, 0)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        received.append(contentsOf: buffer[0..<count])
        while let newline = received.firstIndex(of: 0x0A) {
            let reply = received[received.startIndex..<newline]
            received = Data(received[received.index(after: newline)...])
            guard let object = (try? JSONSerialization.jsonObject(with: reply)) as? [String: Any] else {
                fatalError("a reply is not a JSON object: \(String(decoding: reply, as: UTF8.self))")
            }
            if object["ok"] != nil { replies += 1 } else { precondition(object["event"] != nil, "\(object)") }
        }
    }
    return 0
}
