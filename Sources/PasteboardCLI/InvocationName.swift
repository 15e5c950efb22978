import FoundationEssentials
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a person types to run this very `pb` from another terminal.
///
/// `pb` when the first `pb` on their `PATH` is this executable; otherwise the executable's absolute path, shell-quoted
/// when it needs to be. Right after `make run` pb is not installed yet, and a `pb` elsewhere on the `PATH` (an older
/// install) would not be the one that is running, so the hint names the binary itself.
///
/// ```swift
/// let pb = InvocationName(environment: ["PATH": "/usr/bin"], executable: "/home/ada/pasteboard/.build/release/pb")
/// pb.command  // "/home/ada/pasteboard/.build/release/pb"
/// ```
struct InvocationName: Equatable {
    /// The word to type in place of `pb`.
    let command: String

    /// The name for `executable` (an absolute path; nil when unknown, which shows plain `pb`) under `environment`'s
    /// `PATH`.
    init(environment: [String: String], executable: String?) {
        guard let executable, executable.hasPrefix("/") else {
            command = "pb"
            return
        }
        if let found = Self.firstOnPath("pb", path: environment["PATH"] ?? ""), Self.isSameFile(found, executable) {
            command = "pb"
        } else {
            command = Self.shellQuoted(executable)
        }
    }

    /// The name for the running process.
    static func current(environment: [String: String]) -> InvocationName {
        InvocationName(environment: environment, executable: runningExecutable())
    }

    // MARK: - Looking things up

    /// The absolute path of the running executable, from `/proc/self/exe` (symbolic links already resolved).
    static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first executable file called `name` in the `:`-separated `path`, as a shell would find it. An empty entry
    /// means the current directory, as POSIX says.
    static func firstOnPath(_ name: String, path: String) -> String? {
        for entry in path.split(separator: ":", omittingEmptySubsequences: false) {
            let directory = entry.isEmpty ? "." : String(entry)
            let candidate = directory + "/" + name
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Whether two paths name the same file (after following symbolic links), such as a `~/.local/bin/pb` link to the
    /// built binary.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// `path` as one shell word: unchanged when it holds only characters no shell treats specially, else in single
    /// quotes.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "/._+-,:@%".unicodeScalars.contains(scalar))
        }
        if plain { return path }
        return "'" + path.replacingEvery("'", with: "'\\''") + "'"
    }
}
