public import FoundationEssentials

/// Where the history store lives on disk.
public struct StoreLocation: Sendable, Equatable {
    /// The directory holding the database and the blob files.
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// `$PB_STORE_DIR`, else `$XDG_DATA_HOME/pasteboard`, else `~/.local/share/pasteboard`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> StoreLocation {
        if let explicit = environment["PB_STORE_DIR"], !explicit.isEmpty {
            return StoreLocation(directory: URL(fileURLWithPath: explicit))
        }
        let dataHome: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
            dataHome = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return StoreLocation(directory: dataHome.appendingPathComponent("pasteboard"))
    }

    /// The SQLite database file.
    public var databaseURL: URL { directory.appendingPathComponent("history.sqlite") }
    /// The directory of large blob files.
    public var blobDirectory: URL { directory.appendingPathComponent("blobs") }
}
