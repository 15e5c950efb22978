public import DisplayBackends
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The `pb __serve ID` owners that keep history items on the clipboard when no daemon runs, found among this user's
/// processes: the only record of them is the process itself, which has no other channel to be told of a delete.
enum ServingOwners {
    /// Stops every owner of this user serving one of `ids` with this program; returns how many were stopped.
    @discardableResult
    static func stop(servingAnyOf ids: Set<Int64>) throws(ClipboardError) -> Int {
        guard !ids.isEmpty else { return 0 }
        guard let ownExecutable = executable(of: "self") else {
            throw ClipboardError("Cannot tell which program this is (/proc/self/exe is unreadable).")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: "/proc")
        } catch {
            throw ClipboardError("Cannot list the processes in /proc to find the clipboard's owner.", cause: error)
        }
        let me = getpid()
        let uid = getuid()
        var stopped = 0
        for entry in entries {
            guard let pid = pid_t(entry), pid != me, owner(of: pid) == uid else { continue }
            let arguments = commandLine(of: pid)
            guard arguments.count >= 3, arguments[1] == "__serve", let id = Int64(arguments[2]), ids.contains(id),
                executable(of: entry) == ownExecutable
            else { continue }
            if kill(pid, SIGTERM) == 0 { stopped += 1 }
        }
        return stopped
    }

    private static func owner(of pid: pid_t) -> uid_t? {
        var status = stat()
        guard stat("/proc/\(pid)", &status) == 0 else { return nil }
        return status.st_uid
    }

    /// The program file a process runs, without the " (deleted)" the kernel adds once it was replaced.
    private static func executable(of process: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(process)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
    }

    /// A process's arguments (at most the first 4 KiB of them).
    private static func commandLine(of pid: pid_t) -> [String] {
        let fd = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return [] }
        return buffer[0..<count].split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

extension SystemClipboard {
    /// With no daemon running, stops the `pb __serve` owners keeping one of `ids` on the display's clipboard (for a
    /// delete); returns how many there were.
    @discardableResult
    public func stopOwnersServing(_ ids: [Int64]) throws(ClipboardError) -> Int {
        try ServingOwners.stop(servingAnyOf: Set(ids))
    }
}
