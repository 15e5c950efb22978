public import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Watches the sync folder and the history store with inotify (no polling): a file renamed into the folder
/// (Syncthing renames what it received into place; pb renames what it wrote), and writes to the store's database
/// by any process. Poll `fileDescriptor`, then call `take()`.
public final class FolderWatcher {
    /// What changed since the last `take()`.
    public struct Changes: Sendable, Equatable {
        public var folder = false
        public var store = false

        public init(folder: Bool = false, store: Bool = false) {
            self.folder = folder
            self.store = store
        }
    }

    public let fileDescriptor: Int32
    private let folder: URL
    private var watches: [Int32: String] = [:]
    private var storeWatch: Int32 = -1
    private let storeFiles: Set<String>

    /// - Parameters: `folder`, the sync folder; `store`, the directory of the history database.
    public init(folder: URL, storeDirectory: URL) throws(SyncError) {
        fileDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fileDescriptor >= 0 else { throw AtomicFile.error("Cannot watch the sync folder (inotify)", .last("inotify_init1")) }
        self.folder = folder
        storeFiles = ["history.sqlite", "history.sqlite-wal"]
        try add(folder.path)
        for sub in ["devices", "payloads"] { try? add(folder.appendingPathComponent(sub).path) }  // added when created
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("devices").path) {  // none yet
            for name in names { try? add(folder.appendingPathComponent("devices/\(name)").path) }  // a file there is not ours
        }
        storeWatch = inotify_add_watch(fileDescriptor, storeDirectory.path, UInt32(IN_MODIFY | IN_CLOSE_WRITE))
        guard storeWatch >= 0 else { throw AtomicFile.error("Cannot watch \(storeDirectory.path) (inotify)", .last("inotify_add_watch")) }
    }

    deinit { close(fileDescriptor) }

    private func add(_ path: String) throws(SyncError) {
        // Below the root, a symbolic link is never followed (see `SyncFolder+Files`): not watched either.
        let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE_SELF | IN_ONLYDIR) | (path == folder.path ? 0 : UInt32(IN_DONT_FOLLOW))
        let watch = inotify_add_watch(fileDescriptor, path, mask)
        guard watch >= 0 else { throw AtomicFile.error("Cannot watch \(path) (inotify)", .last("inotify_add_watch")) }
        watches[watch] = path
    }

    /// Reads every pending event; adds watches for directories created meanwhile.
    public func take() -> Changes {
        var changes = Changes()
        let size = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: size)
        while true {
            let count = read(fileDescriptor, &buffer, size)
            if count <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<min(count, nameStart + length)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset = nameStart + length
                if wd == storeWatch {
                    if storeFiles.contains(name) { changes.store = true }
                    continue
                }
                guard let directory = watches[wd] else { continue }
                if mask & UInt32(IN_DELETE_SELF) != 0 {
                    watches[wd] = nil
                    continue
                }
                if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    let path = directory + "/" + name
                    let isOurs = directory == folder.path || directory == folder.path + "/devices"
                    if isOurs, !watches.values.contains(path) {
                        try? add(path)  // a directory gone again at once has nothing to watch
                        changes.folder = true
                    }
                    continue
                }
                if name.hasPrefix(".") { continue }  // temporary files (Syncthing's, ours)
                changes.folder = true
            }
        }
        return changes
    }
}
