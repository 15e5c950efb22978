import FoundationEssentials
import SystemSupport
import TextSupport

/// The GNOME Shell settings that decide which extensions load (`org.gnome.shell`), through the `gsettings` tool:
/// it writes to the user's dconf database whether or not the shell runs, and a running shell follows at once.
public struct ShellSettings {
    let environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// The uuids in `enabled-extensions`.
    public func enabledExtensions() throws(ExtensionError) -> [String] {
        Self.strings(inVariant: try get("enabled-extensions"))
    }

    /// Whether `disable-user-extensions` keeps every extension of the user's from loading.
    public func userExtensionsDisabled() throws(ExtensionError) -> Bool {
        try get("disable-user-extensions") == "true"
    }

    /// Adds `uuid` to `enabled-extensions` (when missing) and lets the user's extensions load.
    public func enable(_ uuid: String) throws(ExtensionError) {
        var enabled = try enabledExtensions()
        if !enabled.contains(uuid) {
            enabled.append(uuid)
            try set("enabled-extensions", Self.variant(enabled))
        }
        if try userExtensionsDisabled() { try set("disable-user-extensions", "false") }
    }

    /// Takes `uuid` out of `enabled-extensions`.
    public func disable(_ uuid: String) throws(ExtensionError) {
        let enabled = try enabledExtensions()
        if enabled.contains(uuid) { try set("enabled-extensions", Self.variant(enabled.filter { $0 != uuid })) }
    }

    private func get(_ key: String) throws(ExtensionError) -> String {
        let output = try gsettings(["get", "org.gnome.shell", key])
        return String(decoding: output, as: UTF8.self).trimmingWhitespace()
    }

    private func set(_ key: String, _ value: String) throws(ExtensionError) {
        _ = try gsettings(["set", "org.gnome.shell", key, value])
    }

    private func gsettings(_ arguments: [String]) throws(ExtensionError) -> Data {
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run("gsettings", arguments, environment: environment)
        } catch {
            throw ExtensionError(
                "Could not run gsettings (\(error.description)); install it (Debian: libglib2.0-bin) and try again.",
                cause: error)
        }
        guard result.succeeded else {
            let said = String(decoding: result.errorOutput, as: UTF8.self).trimmingWhitespace()
            throw ExtensionError(
                "gsettings \(arguments.joined(separator: " ")) failed: \(said.isEmpty ? "no message" : said). "
                    + "Is GNOME Shell installed (its schema org.gnome.shell)?")
        }
        return result.output
    }

    /// The strings of a GVariant text array: `['a@b', "c'd"]` or `@as []`.
    static func strings(inVariant text: String) -> [String] {
        var strings: [String] = []
        var current: String?
        var quote: Character = "'"
        var escaped = false
        for character in text {
            if var value = current {
                if escaped {
                    value.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == quote {
                    strings.append(value)
                    current = nil
                    continue
                } else {
                    value.append(character)
                }
                current = value
            } else if character == "'" || character == "\"" {
                quote = character
                current = ""
            }
        }
        return strings
    }

    /// A GVariant text array of `strings`.
    static func variant(_ strings: [String]) -> String {
        let quoted = strings.map { "'" + $0.replacingEvery("\\", with: "\\\\").replacingEvery("'", with: "\\'") + "'" }
        return "[" + quoted.joined(separator: ", ") + "]"
    }
}
