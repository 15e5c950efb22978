import Foundation
import PasteboardTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `bench/owner-storm.c`: one process that takes CLIPBOARD again and again at a fixed rate, each time with a
/// distinct text (`PREFIX-000042`) from a new owner window. Compiled once per test run with `cc … -lX11`.
enum OwnerStorm {
    /// One change the storm made: the X server time of its ownership and its text.
    struct Change: Sendable {
        let serverTime: UInt64
        let text: String
    }

    private static let compiled = Mutex<Result<String, SetupFailure>?>(nil)

    /// The compiled driver; compiles it on first use (blocking briefly), or fails with the compiler's message.
    static func executable() throws -> String {
        try compiled.withLock { cached in
            if let cached { return try cached.get() }
            let result = compile(filePath: #filePath)
            cached = result
            return try result.get()
        }
    }

    /// The arguments for `count` changes at `rate` per second, texts starting with `prefix`.
    static func arguments(rate: Int, count: Int, prefix: String, lingerMilliseconds: Int = 1000) -> [String] {
        ["--rate", "\(rate)", "--count", "\(count)", "--prefix", prefix, "--linger-ms", "\(lingerMilliseconds)"]
    }

    /// The changes a finished storm reports (`change INDEX SET_USEC SERVER_TIME … TEXT` lines).
    static func changes(in output: String) -> [Change] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 9, fields[0] == "change", let time = UInt64(fields[3]) else { return nil }
            return Change(serverTime: time, text: String(fields[8]))
        }
    }

    private static func compile(filePath: String) -> Result<String, SetupFailure> {
        // Tests/ReliabilityTests/Support/OwnerStorm.swift → bench/owner-storm.c
        let source = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("bench/owner-storm.c")
        guard FileManager.default.fileExists(atPath: source.path) else {
            return .failure(SetupFailure("The storm driver's source is missing at \(source.path)."))
        }
        guard let compiler = executableOnPath("cc") ?? executableOnPath("gcc") ?? executableOnPath("clang") else {
            return .failure(SetupFailure("No C compiler (cc) found to build \(source.lastPathComponent)."))
        }
        removeStaleBuilds()
        let directory = URL(fileURLWithPath: "/tmp/pb-owner-storm-\(getpid())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let output = directory.appendingPathComponent("owner-storm")
            let process = try ChildProcess(
                executable: compiler, arguments: ["-O2", "-o", output.path, source.path, "-lX11"],
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], stdin: nil,
                ioDirectory: directory)
            _ = process.waitBlocking(timeout: .seconds(60))
            guard process.termination == .init(status: 0, wasSignalled: false) else {
                process.terminate(grace: .seconds(1))
                return .failure(
                    SetupFailure(
                        "Compiling \(source.lastPathComponent) failed (is libx11-dev installed?): \(process.stderr)"))
            }
            return .success(output.path)
        } catch {
            return .failure(SetupFailure("Cannot compile \(source.lastPathComponent): \(error)"))
        }
    }

    /// Removes the drivers earlier test runs built (`/tmp/pb-owner-storm-PID` of processes that are gone).
    private static func removeStaleBuilds() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix("pb-owner-storm-") {
            guard let pid = Int32(name.dropFirst("pb-owner-storm-".count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: "/tmp/" + name)  // best effort: another run may race us
            }
        }
    }
}
