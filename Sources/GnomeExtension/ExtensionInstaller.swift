import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// Where the extension goes and which variant: the user's extensions directory, the installed GNOME Shell's version.
public struct ExtensionInstaller {
    let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// `$XDG_DATA_HOME/gnome-shell/extensions/<uuid>` (`~/.local/share` without it).
    public func userDirectory() throws(ExtensionError) -> String {
        let dataHome: String
        if let configured = environment["XDG_DATA_HOME"], configured.hasPrefix("/") {
            dataHome = configured
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            dataHome = home + "/.local/share"
        } else {
            throw ExtensionError("Neither XDG_DATA_HOME nor HOME is set to an absolute directory: set HOME.")
        }
        return dataHome + "/gnome-shell/extensions/" + ExtensionSource.uuid
    }

    /// The system-wide directory under `prefix` (`/usr`): `<prefix>/share/gnome-shell/extensions/<uuid>`.
    public static func systemDirectory(prefix: String) -> String {
        prefix + "/share/gnome-shell/extensions/" + ExtensionSource.uuid
    }

    /// The major version of the installed GNOME Shell (`gnome-shell --version`), or nil when there is none.
    public func shellMajorVersion() -> Int? {
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run("gnome-shell", ["--version"], environment: environment)
        } catch {
            return nil  // not installed: the caller says so, or was told the version
        }
        guard result.succeeded else { return nil }
        // "GNOME Shell 43.9"
        let words = String(decoding: result.output, as: UTF8.self).split(separator: " ")
        return words.last.flatMap { Int($0.split(separator: ".").first ?? "") }
    }

    /// Writes the variant for GNOME Shell `major` into `directory`, replacing what is there, file by file
    /// (each written aside, then renamed over the old one).
    public func install(into directory: String, shellMajor: Int) throws(ExtensionError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ExtensionError("Could not create \(directory): \(error)")
        }
        for (name, contents) in ExtensionSource.files(forShell: shellMajor) {
            let path = directory + "/" + name
            let aside = path + ".new"
            do {
                try Data(contents.utf8).write(to: URL(fileURLWithPath: aside))
            } catch {
                throw ExtensionError("Could not write \(aside): \(error)")
            }
            guard rename(aside, path) == 0 else {
                let cause = SystemError.last("rename")
                throw ExtensionError("Could not put \(path) in place: \(cause.reason).", cause: cause)
            }
        }
    }

    /// Removes the extension's files from `directory`, then the directory when nothing else is left in it.
    public func uninstall(from directory: String) throws(ExtensionError) {
        for name in ["extension.js", "metadata.json"] {
            let path = directory + "/" + name
            if unlink(path) != 0 && errno != ENOENT {
                let cause = SystemError.last("unlink")
                throw ExtensionError("Could not remove \(path): \(cause.reason).", cause: cause)
            }
        }
        if rmdir(directory) != 0 && errno != ENOENT && errno != ENOTEMPTY {
            let cause = SystemError.last("rmdir")
            throw ExtensionError("Could not remove \(directory): \(cause.reason).", cause: cause)
        }
    }

    /// The version in `directory`'s metadata.json, or nil when there is no extension there (or none readable).
    public func installedVersion(in directory: String) -> Int? {
        struct Metadata: Decodable { let version: Int }
        guard let data = FileManager.default.contents(atPath: directory + "/metadata.json") else { return nil }
        do {
            return try JSONDecoder().decode(Metadata.self, from: data).version
        } catch {
            return nil  // damaged: reported as not installed, and `install` writes it anew
        }
    }
}
