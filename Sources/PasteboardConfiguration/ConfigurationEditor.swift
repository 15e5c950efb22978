import FoundationEssentials
import SystemSupport
import TextSupport

#if canImport(Glibc)
import Glibc
#endif

/// Changes settings in the configuration file's text in place, as a person would with an editor: every line it does
/// not change (comments, blank lines, settings it was not asked about, even ones it does not know) stays byte for
/// byte, a changed setting keeps its place and its trailing comment, and a new one goes at the end. The settings
/// window writes through it; `save` checks the result with the same parser `pb` reads it with, and writes nothing
/// when it finds a problem.
public struct ConfigurationEditor: Sendable {
    /// The file's text.
    public private(set) var text: String
    /// Why a value asked for cannot be written, if one cannot (`save` says so and writes nothing).
    public private(set) var problem: String?

    public init(text: String) {
        self.text = text
    }

    /// The values `key` has in the file, in order (a key such as `ignore-app` may be given several times; a single
    /// one counts once, the last given wins as the parser reads it).
    public func values(of key: String) -> [String] {
        Self.lines(of: text).compactMap { line in Self.setting(in: line).flatMap { $0.key == key ? $0.value : nil } }
    }

    /// The last value of `key`, or nil when the file does not set it.
    public func value(of key: String) -> String? { values(of: key).last }

    /// Makes `key`'s values `values` (none: the key goes). Lines that already say so stay untouched; otherwise the
    /// first line of the key becomes the first value (keeping its comment), the others follow it, and the key's
    /// other lines go. A key the file lacks is appended.
    public mutating func set(_ key: String, to values: [String]) {
        var lines = Self.lines(of: text)
        let indices = lines.indices.filter { Self.setting(in: lines[$0])?.key == key }
        let current = indices.compactMap { Self.setting(in: lines[$0])?.value }
        guard current != values else { return }
        if let bad = values.first(where: { $0.contains("#") || $0.contains("\n") || $0.contains("\r") }) {
            problem = "\(key) \(quoted(bad)): a value cannot hold '#' (it starts a comment) nor a line break."
            return
        }
        let replacement = values.map { "\(key) = \($0)" }
        guard let first = indices.first else {
            if replacement.isEmpty { return }
            // After the last line, on a line of its own (the file may lack its final newline).
            if lines.last == "" { lines.removeLast() }
            lines += replacement + [""]
            text = lines.joined(separator: "\n")
            return
        }
        var firstLines = replacement
        if let comment = Self.comment(in: lines[first]), !firstLines.isEmpty { firstLines[0] += "  " + comment }
        for index in indices.reversed() where index != first { lines.remove(at: index) }
        lines.replaceSubrange(first...first, with: firstLines)
        text = lines.joined(separator: "\n")
    }

    /// Sets one value, or removes the key (nil or empty).
    public mutating func set(_ key: String, to value: String?) {
        set(key, to: value.map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : [$0] } ?? [])
    }

    /// The file at `path`'s text for editing ("" when there is none yet), read as `Configuration.load` reads it.
    public static func load(path: String) throws(ConfigurationError) -> ConfigurationEditor {
        guard let data = try ConfigurationFile.read(path, upToCount: Configuration.maxFileBytes + 1) else {
            return ConfigurationEditor(text: "")
        }
        guard data.count <= Configuration.maxFileBytes else {
            throw ConfigurationError(path: path, line: nil, problem: "is larger than 1 MiB; is it the right file?")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(path: path, line: nil, problem: "is not UTF-8 text.")
        }
        return ConfigurationEditor(text: text)
    }

    /// Checks the text as `pb` would read it from `path`, then replaces the file with it at once (written beside
    /// it, flushed, renamed over it; its mode kept, 600 for a new file): a reader sees the old file or the new one,
    /// never half of one. A problem throws before anything is written, so the file stays as it was. Returns the
    /// configuration the file now holds.
    @discardableResult
    public func save(to path: String) throws(ConfigurationError) -> Configuration {
        if let problem { throw ConfigurationError(path: path, line: nil, problem: problem) }
        let configuration = try Configuration.parse(text, path: path)
        // A file linked from elsewhere (dotfiles) is replaced where it really is, and the link stays.
        var target = path
        if let resolved = realpath(path, nil) {
            target = String(cString: resolved)
            free(resolved)
        }
        let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? ""
        func failure(_ what: String, _ cause: SystemError) -> ConfigurationError {
            ConfigurationError(path: path, line: nil, problem: "cannot be written (\(what): \(cause.reason)).", cause: cause)
        }
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ConfigurationError(
                    path: path, line: nil, problem: "cannot be written (its directory cannot be made: \(error)).")
            }
        }
        var mode: mode_t = 0o600
        var info = stat()
        if stat(target, &info) == 0 { mode = info.st_mode & 0o7777 }
        let temporary = (directory.isEmpty ? "." : directory) + "/.config-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure("open", .last("open")) }
        var problem: ConfigurationError?
        do throws(SystemError) {
            try FileDescriptor.write(Data(text.utf8), to: fd)
            if fchmod(fd, mode) != 0 { throw SystemError.last("fchmod") }
            if fsync(fd) != 0 { throw SystemError.last("fsync") }
        } catch {
            problem = failure(error.call, error)
        }
        if close(fd) != 0, problem == nil { problem = failure("close", .last("close")) }
        if problem == nil, rename(temporary, target) != 0 { problem = failure("rename", .last("rename")) }
        if let problem {
            unlink(temporary)
            throw problem
        }
        return configuration
    }

    // MARK: - Lines

    static func lines(of text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The key and value a line sets, as the parser reads them, or nil for a comment, a blank or a malformed line.
    static func setting(in line: String) -> (key: String, value: String)? {
        let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = content.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        return (parts[0], parts[1])
    }

    /// The line's trailing `# comment`, or nil.
    static func comment(in line: String) -> String? {
        guard let mark = line.firstIndex(of: "#") else { return nil }
        return String(line[mark...])
    }
}
