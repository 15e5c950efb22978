import DBusWire
import Foundation
import PasteboardTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A private `dbus-daemon` with a configuration of its own, listening on a socket file or an abstract socket;
/// stopped when the value goes away.
final class PrivateBus {
    enum Listen { case path, abstract }

    let directory: URL
    let address: String
    private let daemon: ChildProcess

    init(listen: Listen = .path) throws {
        guard let executable = executableOnPath("dbus-daemon") else {
            throw SetupFailure("dbus-daemon is needed: apt-get install -y dbus-daemon")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dbuswire-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let listenAddress =
            switch listen {
            case .path: "unix:path=\(directory.path)/bus"
            case .abstract: "unix:abstract=\(directory.path)/abstract-bus"
            }
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(listenAddress)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let configurationURL = directory.appendingPathComponent("bus.conf")
        try configuration.write(to: configurationURL, atomically: true, encoding: .utf8)
        daemon = try ChildProcess(
            executable: executable,
            arguments: ["--config-file=\(configurationURL.path)", "--nofork", "--print-address=1"],
            environment: ["PATH": "/usr/bin:/bin"], stdin: nil, ioDirectory: directory)
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let printed = String(decoding: daemon.stdout, as: UTF8.self)
            if let line = printed.split(separator: "\n").first, printed.hasSuffix("\n") {
                address = String(line)
                break
            }
            guard daemon.isRunning, ContinuousClock.now < deadline else {
                throw SetupFailure("dbus-daemon did not start: \(daemon.stderr)")
            }
            usleep(10_000)
        }
    }

    deinit {
        daemon.terminate(grace: .seconds(2))
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Drives `connections` (poll, read, flush, timeouts) until `done` is true or `timeout` passes; false then.
func pump(_ connections: [DBusConnection], timeout: Duration = .seconds(5), until done: () -> Bool)
    throws -> Bool
{
    let deadline = ContinuousClock.now + timeout
    while !done() {
        guard ContinuousClock.now < deadline else { return false }
        var entries = connections.map {
            pollfd(
                fd: $0.fileDescriptor, events: Int16(POLLIN) | ($0.wantsWrite ? Int16(POLLOUT) : 0),
                revents: 0)
        }
        _ = poll(&entries, nfds_t(entries.count), 20)
        for (connection, entry) in zip(connections, entries) {
            if entry.revents & Int16(POLLOUT) != 0 { try connection.flush() }
            if entry.revents != 0 { try connection.processIncoming() }
            connection.processTimeouts(now: .now)
        }
    }
    return true
}

/// Everything read from `fd` until end of file (blocking), then `fd` closed.
func readAll(_ fd: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        bytes.append(contentsOf: buffer[..<count])
    }
    close(fd)
    return bytes
}
