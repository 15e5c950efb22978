import Foundation
import PasteboardTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `Tests/Fixtures/x11-test-owner.c`, a scriptable selection owner, compiled once per test run with `cc … -lX11`.
enum TestOwner {
    /// Hostile or special behaviours of the owner (see the comment at the top of the C file).
    enum Mode: Sendable {
        case secret
        case stall
        case exitAfterServing(Int)
        case exitAfterMilliseconds(Int)
        case windowClass(String)
        case selection(String)
        /// Replies larger than this many bytes go out through INCR, in chunks of this size.
        case incrThreshold(Int)

        var arguments: [String] {
            switch self {
            case .secret: return ["--secret"]
            case .stall: return ["--stall"]
            case .exitAfterServing(let count): return ["--exit-after-serving", String(count)]
            case .exitAfterMilliseconds(let milliseconds): return ["--exit-after-ms", String(milliseconds)]
            case .windowClass(let name): return ["--class", name]
            case .selection(let name): return ["--selection", name]
            case .incrThreshold(let bytes): return ["--incr-threshold", String(bytes)]
            }
        }
    }

    private static let compiled = Mutex<Result<URL, SetupFailure>?>(nil)

    /// The compiled owner; compiles it on first use (blocking briefly), or fails with the compiler's message.
    static func executable(filePath: String = #filePath) throws -> URL {
        try compiled.withLock { cached in
            if let cached { return try cached.get() }
            let result = compile(filePath: filePath)
            cached = result
            return try result.get()
        }
    }

    private static func compile(filePath: String) -> Result<URL, SetupFailure> {
        // Tests/X11BackendTests/Support/TestOwner.swift → Tests/Fixtures/x11-test-owner.c
        let source = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/x11-test-owner.c")
        guard FileManager.default.fileExists(atPath: source.path) else {
            return .failure(SetupFailure("The test owner's source is missing at \(source.path)."))
        }
        guard let compiler = executableOnPath("cc") ?? executableOnPath("gcc") ?? executableOnPath("clang") else {
            return .failure(SetupFailure("No C compiler (cc) found to build \(source.lastPathComponent)."))
        }
        removeStaleBuilds()
        let directory = URL(fileURLWithPath: "/tmp/pb-x11-owner-\(getpid())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let output = directory.appendingPathComponent("x11-test-owner")
            let process = try ChildProcess(
                executable: compiler,
                arguments: [
                    "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2", "-Wall", "-Wextra", "-Werror", "-o", output.path,
                    source.path, "-lX11",
                ],
                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                stdin: nil, ioDirectory: directory)
            _ = process.waitBlocking(timeout: .seconds(60))
            guard let exit = process.termination else {
                process.terminate(grace: .seconds(1))
                return .failure(SetupFailure("Compiling \(source.lastPathComponent) took longer than 60 s."))
            }
            guard exit == .init(status: 0, wasSignalled: false) else {
                return .failure(
                    SetupFailure(
                        "Compiling \(source.lastPathComponent) failed (is libx11-dev installed?): \(process.stderr)"))
            }
            return .success(output)
        } catch {
            return .failure(SetupFailure("Cannot compile \(source.lastPathComponent): \(error)"))
        }
    }

    /// Removes the owners earlier test runs built (`/tmp/pb-x11-owner-PID` of processes that are gone).
    private static func removeStaleBuilds() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix("pb-x11-owner-") {
            guard let pid = Int32(name.dropFirst("pb-x11-owner-".count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: "/tmp/" + name)  // best effort: another run may race us
            }
        }
    }
}
