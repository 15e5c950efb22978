import FoundationEssentials
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif
import TextSupport

/// The clipboard managers `pb import --from` reads, where each keeps its history, and how it is read.
public enum ImportSource: String, CaseIterable, Sendable {
    case copyq
    case klipper
    case gpaste
    case maccy
    case clipboardIndicator = "clipboard-indicator"
    case cliphist

    /// Where the manager keeps its history, for a user's environment (XDG directories, else under `HOME`).
    public func defaultPath(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? ""
        func xdg(_ name: String, _ fallback: String) -> String {
            if let value = environment[name], value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        switch self {
        case .copyq: return xdg("XDG_CONFIG_HOME", ".config") + "/copyq"
        case .klipper: return xdg("XDG_DATA_HOME", ".local/share") + "/klipper/history2.lst"
        case .gpaste: return xdg("XDG_DATA_HOME", ".local/share") + "/gpaste/history.xml"
        case .maccy:
            return home + "/Library/Containers/org.p0deje.Maccy/Data/Library/Application Support/Maccy/Storage.sqlite"
        case .clipboardIndicator: return xdg("XDG_CACHE_HOME", ".cache") + "/clipboard-indicator@tudmotu.com/registry.txt"
        case .cliphist: return xdg("XDG_CACHE_HOME", ".cache") + "/cliphist/db"
        }
    }

    /// Reads the history at `path` (the default location when nil), newest first, every item dated (see
    /// `ImportedHistory.datingUndated`).
    public func read(path: String?, environment: [String: String]) throws(ImportError) -> ImportedHistory {
        let location = path ?? defaultPath(environment: environment)
        var history: ImportedHistory
        var newest = Date()
        switch self {
        case .copyq:
            var files = [location]
            if Self.isDirectory(location) {
                let names: [String]
                do {
                    names = try FileManager.default.contentsOfDirectory(atPath: location)
                } catch {
                    throw ImportError("Cannot list \(location): \(SystemError.reason(of: error)).")
                }
                files = names.filter { $0.hasPrefix("copyq_tab_") && $0.hasSuffix(".dat") }.sorted().map {
                    location + "/" + $0
                }
                if files.isEmpty { throw ImportError("\(location) holds no CopyQ tab (copyq_tab_*.dat).") }
            }
            history = ImportedHistory()
            for file in files {
                var tab = try CopyQReader.read(Array(try Self.readFile(file, limit: ImportLimits.fileBytes)), file: file)
                tab.datingUndated(newest: Self.modificationDate(file) ?? newest)
                history.append(contentsOf: tab)
            }
            return history
        case .klipper:
            history = try KlipperReader.read(Array(try Self.readFile(location, limit: ImportLimits.fileBytes)), file: location)
        case .gpaste:
            history = try GPasteReader.read(
                Array(try Self.readFile(location, limit: ImportLimits.fileBytes)), file: location,
                loadImage: Self.readFileIfPresent)
        case .maccy:
            guard FileManager.default.fileExists(atPath: location) else {
                throw ImportError(
                    "\(location) does not exist. Copy Maccy's Storage.sqlite from the Mac and name it: "
                        + "pb import --from maccy PATH.")
            }
            history = try MaccyReader.read(path: location)
        case .clipboardIndicator:
            history = try ClipboardIndicatorReader.read(
                Array(try Self.readFile(location, limit: ImportLimits.fileBytes)), file: location,
                loadFile: Self.readFileIfPresent)
        case .cliphist:
            let database = path.map { ["-db-path", $0] } ?? []
            let listing = try Self.runCliphist(database + ["list"], environment: environment, limit: ImportLimits.fileBytes)
            history = try CliphistReader.read(listing: listing) { id throws(ImportError) in
                try Self.runCliphist(database + ["decode", id], environment: environment, limit: ImportLimits.payloadBytes)
            }
            return history.dated(newest: newest)
        }
        if let date = Self.modificationDate(location) { newest = date }
        return history.dated(newest: newest)
    }

    // MARK: - Bounded reads

    /// The whole file at `path`, refused when larger than `limit` bytes.
    static func readFile(_ path: String, limit: Int) throws(ImportError) -> Data {
        let size: Int
        do {
            size = try FileManager.default.attributesOfItem(atPath: path).fileSize
        } catch {
            let reason = SystemError.reason(of: error)
            throw ImportError("Cannot read \(path): \(reason).")
        }
        guard size <= limit else {
            throw ImportError("\(path) is \(size) bytes, more than pb reads from one file (\(limit)).")
        }
        do {
            let file = try ReadableFile(path: path)
            let data = try file.read(upToCount: size + 1)
            guard data.count <= limit else { throw ImportError("\(path) grew past \(limit) bytes while being read.") }
            return data
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError("Cannot read \(path): \(SystemError.reason(of: error)).")
        }
    }

    /// A payload file a history names, nil when it is gone.
    static func readFileIfPresent(_ path: String) throws(ImportError) -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try readFile(path, limit: ImportLimits.payloadBytes)
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: Bool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory
    }

    /// What `cliphist ARGUMENTS` prints, at most `limit` bytes.
    static func runCliphist(_ arguments: [String], environment: [String: String], limit: Int) throws(ImportError) -> Data {
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run("cliphist", arguments, environment: environment, timeout: .seconds(60), limit: limit + 1)
        } catch {
            throw ImportError(
                error.errno == ENOENT
                    ? "cliphist is not installed (or not on PATH): pb reads its history through it."
                    : "Cannot run cliphist: \(error.description).")
        }
        let command = (["cliphist"] + arguments).joined(separator: " ")
        guard result.succeeded else {
            let message = String(decoding: result.errorOutput.prefix(300), as: UTF8.self).trimmingWhitespace()
            throw ImportError("'\(command)' failed\(message.isEmpty ? "" : ": " + message). Nothing was read.")
        }
        guard result.output.count <= limit else { throw ImportError("'\(command)' printed more than \(limit) bytes.") }
        return result.output
    }
}

extension ImportedHistory {
    fileprivate func dated(newest: Date) -> ImportedHistory {
        var copy = self
        copy.datingUndated(newest: newest)
        return copy
    }
}
