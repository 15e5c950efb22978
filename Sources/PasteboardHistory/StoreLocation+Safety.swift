import FoundationEssentials
import SystemSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the store's directory and files may be trusted: they belong to this user, nobody else can write them,
/// and no symbolic link stands where a store file should be. Anyone who can write the store can change what
/// `pb paste` prints or what is served back, so such a store is refused rather than used.
extension StoreLocation {
    /// The store's own files: the database, its write-ahead log and shared-memory index, and the payload directory.
    var storeFiles: [(path: String, isDirectory: Bool)] {
        let database = databaseURL.path
        return [(database, false), (database + "-wal", false), (database + "-shm", false), (blobDirectory.path, true)]
    }

    /// Creates the store directory when it is missing (each missing parent too, 0700 whatever the umask), then
    /// checks it and the store's files. A path through a symbolic link is refused first, and missing directories are
    /// made only inside a directory of this user's own (see `checkCreatable`). With `tightening`, modes that let
    /// other users read are narrowed to 0700 or 0600 (the files are pb's own); a store another user owns or can
    /// write is refused, never repaired.
    func prepare(creating: Bool, tightening: Bool) throws(HistoryError) {
        let path = directory.path
        try checkNoSymbolicLinks()
        var info = stat()
        if stat(path, &info) != 0 {
            // ENOTDIR: a file stands where a parent directory should be; creating it says so.
            guard errno == ENOENT || (errno == ENOTDIR && creating) else { throw Self.cannotUse(path, .last("stat")) }
            guard creating else {
                throw HistoryError(.io, "No history store at \(databaseURL.path) yet: copy something first.")
            }
            try Self.makeDirectories(directory)
            guard stat(path, &info) == 0 else { throw Self.cannotUse(path, .last("stat")) }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw HistoryError(.notWritable, "\(path) exists but is not a directory.")
        }
        try Self.checkTrust(
            path, info, isDirectory: true, name: "The history store directory \(path)", tightening: tightening)
        if creating && access(path, W_OK) != 0 {
            let cause = SystemError.last("access")
            throw HistoryError(
                .notWritable,
                "The data directory \(path) is not writable (\(cause.reason)). "
                    + "Fix its permissions or set XDG_DATA_HOME to a writable directory.", underlying: cause)
        }
        for file in storeFiles {
            try Self.checkStoreFile(file.path, isDirectory: file.isDirectory, tightening: tightening)
        }
    }

    /// Checks one file or directory inside the store, if it exists: not a symbolic link, of the right kind, this
    /// user's, writable by nobody else.
    static func checkStoreFile(_ path: String, isDirectory: Bool, tightening: Bool) throws(HistoryError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return }
            throw cannotUse(path, .last("lstat"))
        }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFLNK {
            throw HistoryError(
                .unsafe,
                "\(path) is a symbolic link, where the history store keeps a \(isDirectory ? "directory" : "file") of its "
                    + "own; pb does not follow it. Replace the link with what it points to (or move the whole store "
                    + "there and set PB_STORE_DIR).")
        }
        guard kind == (isDirectory ? S_IFDIR : S_IFREG) else {
            throw HistoryError(
                .unsafe,
                "\(path) is not a \(isDirectory ? "directory" : "regular file"); the history store cannot use it. "
                    + "Move it aside.")
        }
        try checkTrust(
            path, info, isDirectory: isDirectory,
            name: "The history store's \(isDirectory ? "directory" : "file") \(path)", tightening: tightening)
    }

    /// Refuses what another user owns or can write; narrows what others can only read, when asked to.
    static func checkTrust(
        _ path: String, _ info: stat, isDirectory: Bool, name: String, tightening: Bool
    ) throws(HistoryError) {
        let mode = info.st_mode & 0o7777
        if info.st_uid != geteuid() {
            throw HistoryError(
                .unsafe,
                "\(name) belongs to another user (uid \(info.st_uid)), so pb does not trust it. If it is yours, run "
                    + "'chown -R \(Self.userName) \(path)'; otherwise set PB_STORE_DIR (or XDG_DATA_HOME) to a directory "
                    + "of your own.")
        }
        let tight: mode_t = isDirectory ? 0o700 : 0o600
        if mode & 0o022 != 0 {
            throw HistoryError(
                .unsafe,
                "\(name) can be written by other users (mode \(String(mode, radix: 8))), so pb does not trust it. If "
                    + "nobody else changed it, run 'chmod \(String(tight, radix: 8)) \(path)'.")
        }
        if tightening && mode & 0o077 != 0 && chmod(path, tight) != 0 {
            let cause = SystemError.last("chmod")
            throw HistoryError(
                .notWritable, "Cannot make \(path) private (mode \(String(tight, radix: 8))): \(cause.reason).",
                underlying: cause)
        }
    }

    /// `mkdir -p` with every directory it makes 0700, whatever the umask.
    static func makeDirectories(_ directory: URL) throws(HistoryError) {
        var missing: [String] = []
        var current = directory
        while true {
            var info = stat()
            if stat(current.path, &info) == 0 { break }
            guard errno == ENOENT else { throw cannotCreate(current.path, .last("stat")) }
            missing.append(current.path)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { break }
            current = parent
        }
        if !missing.isEmpty { try checkCreatable(in: current.path, for: directory.path) }
        for path in missing.reversed() {
            if mkdir(path, 0o700) != 0 {
                guard errno == EEXIST else { throw cannotCreate(path, .last("mkdir")) }
                continue  // another process made it meanwhile: not ours to change
            }
            // mkdir applies the umask, which may take away the owner's own bits.
            if chmod(path, 0o700) != 0 { throw cannotCreate(path, .last("chmod")) }
        }
    }

    /// Refuses to create the store's directories inside `ancestor` (the deepest existing directory on the way) unless
    /// it is a directory this user owns, or a sticky one such as `/tmp` (where nobody can take over what this user
    /// makes; a store directory someone else made first is then refused by `checkTrust`).
    static func checkCreatable(in ancestor: String, for store: String) throws(HistoryError) {
        var info = stat()
        guard stat(ancestor, &info) == 0 else { throw cannotCreate(store, .last("stat")) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw HistoryError(
                .notWritable,
                "Cannot create \(store): \(ancestor) is not a directory. Set XDG_DATA_HOME (or PB_STORE_DIR) to a "
                    + "directory of your own.")
        }
        guard info.st_uid == geteuid() || info.st_mode & S_ISVTX != 0 else {
            throw HistoryError(
                .unsafe,
                "Cannot create \(store): \(ancestor) belongs to another user (uid \(info.st_uid)), so pb does not "
                    + "create its store there. Set XDG_DATA_HOME (or PB_STORE_DIR) to a directory of your own.")
        }
    }

    /// Refuses a store directory reached through a symbolic link, before anything is created: SQLite opens the
    /// store only by a path without links (`SQLITE_OPEN_NOFOLLOW`), and a link must not make pb create directories
    /// and files where it leads (an `XDG_DATA_HOME` linked to `/etc` left `/etc/pasteboard/history.sqlite` behind,
    /// issue 27). The deepest part of the path that exists is resolved and compared with itself.
    func checkNoSymbolicLinks() throws(HistoryError) {
        var existing = directory.path
        var rest: [String] = []
        var info = stat()
        while lstat(existing, &info) != 0 {
            guard errno == ENOENT else { return }  // ENOTDIR and the like: the caller's stat says so
            let parent = Self.parent(of: existing)
            if parent == existing { return }
            rest.insert(String(existing.dropFirst(parent == "/" ? 1 : parent.count + 1)), at: 0)
            existing = parent
        }
        guard let pointer = realpath(existing, nil) else { return }
        let resolved = String(cString: pointer)
        free(pointer)
        let lexical = existing.count > 1 && existing.hasSuffix("/") ? String(existing.dropLast()) : existing
        guard resolved != lexical else { return }
        let meant = ([resolved == "/" ? "" : resolved] + rest).joined(separator: "/")
        throw HistoryError(
            .unsafe,
            "The history store's path \(directory.path) goes through a symbolic link (\(lexical) leads to "
                + "\(resolved)); pb opens and creates its store only by a path without links, so nothing was created "
                + "there. Set XDG_DATA_HOME (or PB_STORE_DIR) to the directory you mean (\(meant)).")
    }

    /// The directory holding `path` (`/` for a top-level name).
    private static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return path }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static func cannotCreate(_ path: String, _ cause: SystemError) -> HistoryError {
        HistoryError(
            .notWritable,
            "Cannot create \(path): \(cause.reason). Set XDG_DATA_HOME (or PB_STORE_DIR) to a writable directory.",
            underlying: cause)
    }

    private static func cannotUse(_ path: String, _ cause: SystemError) -> HistoryError {
        HistoryError(
            cause.errno == EACCES ? .notWritable : .io,
            "Cannot use \(path): \(cause.reason). Fix its permissions or set XDG_DATA_HOME (or PB_STORE_DIR) to a "
                + "directory of your own.", underlying: cause)
    }

    /// This user's login name, for a `chown` the message suggests.
    private static var userName: String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return String(geteuid()) }
        return String(cString: name)
    }
}
