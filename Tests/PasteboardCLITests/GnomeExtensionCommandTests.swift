import Foundation
import Testing

/// `pb gnome-extension`: the two variants it writes, its settings through gsettings and dconf on a private session
/// bus (`dbus-run-session`), `status` with no shell running, and bad input. (The extension loaded by a real GNOME
/// Shell, and the daemon using it, are in Tests/Apps/gnome_pb.py, run by `make test-apps`.)
@Suite struct GnomeExtensionCommandTests {
    let sandbox: Sandbox
    static let uuid = "pasteboard@pasteboard.org"

    init() throws {
        sandbox = try Sandbox()
    }

    var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func installWritesTheVariantOfTheShellVersion() async throws {
        let legacy = sandbox.root.appendingPathComponent("legacy").path
        let result = try await sandbox.succeed(["gnome-extension", "install", "--shell-version", "43", "--dir", legacy])
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("for GNOME 43"), "\(result)")
        let source = repository.appendingPathComponent("contrib/gnome-shell/\(Self.uuid)")
        #expect(try contents("\(legacy)/\(Self.uuid)/extension.js") == contents(source.appendingPathComponent("extension.js").path))
        #expect(try contents("\(legacy)/\(Self.uuid)/metadata.json") == contents(source.appendingPathComponent("metadata.json").path))

        let modules = sandbox.root.appendingPathComponent("modules").path
        _ = try await sandbox.succeed(["gnome-extension", "install", "--shell-version", "46.2", "--dir", modules])
        let script = try contents("\(modules)/\(Self.uuid)/extension.js")
        #expect(script.contains("import Meta from 'gi://Meta';") && script.contains("export default class"))
        #expect(!script.contains("imports.gi") && !script.contains("function init()"))
        let metadata = try contents("\(modules)/\(Self.uuid)/metadata.json")
        #expect(metadata.contains("\"46\"") && !metadata.contains("\"43\""), "\(metadata)")

        _ = try await sandbox.succeed(["gnome-extension", "uninstall", "--dir", modules])
        #expect(!FileManager.default.fileExists(atPath: "\(modules)/\(Self.uuid)"))
    }

    @Test func badInputIsAUsageError() async throws {
        let action = try await sandbox.run(["gnome-extension", "instal"])
        #expect(action.status == 64 && action.stderr.contains("Did you mean 'install'?"), "\(action)")
        let version = try await sandbox.run(["gnome-extension", "install", "--shell-version", "forty"])
        #expect(version.status == 64 && version.stderr.contains("--shell-version needs"), "\(version)")
        let relative = try await sandbox.run(["gnome-extension", "install", "--shell-version", "43", "--dir", "ext"])
        #expect(relative.status == 64 && relative.stderr.contains("absolute"), "\(relative)")
    }

    /// GIO's keyfile backend keeps org.gnome.shell in XDG_CONFIG_HOME, as dconf would, with no session bus to ask:
    /// the shell's presence is then unknown.
    static let noBus: [String: String?] = ["GSETTINGS_BACKEND": "keyfile", "DBUS_SESSION_BUS_ADDRESS": nil]

    @Test func installEnablesAndStatusSaysWhatIsMissing() async throws {
        let install = try await sandbox.run(["gnome-extension", "install", "--shell-version", "43"], environment: Self.noBus)
        #expect(install.status == 0, "\(install)")
        #expect(install.output.contains("Enabled it in org.gnome.shell enabled-extensions."), "\(install)")
        #expect(install.output.contains("Log out and in again"), "\(install)")
        let directory = sandbox.dataHome.appendingPathComponent("gnome-shell/extensions/\(Self.uuid)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("extension.js").path))
        let keyfile = try contents(sandbox.configHome.appendingPathComponent("glib-2.0/settings/keyfile").path)
        #expect(keyfile.contains("enabled-extensions=['\(Self.uuid)']"), "\(keyfile)")
        #expect(keyfile.contains("disable-user-extensions=false") || !keyfile.contains("disable-user-extensions"))

        let status = try await sandbox.run(["gnome-extension", "status"], environment: Self.noBus)
        #expect(status.status == 1, "no shell runs: \(status)")
        #expect(status.output.contains("installed: yes, version 2, in \(directory.path)"), "\(status)")
        #expect(status.output.contains("enabled:   yes"), "\(status)")
        #expect(status.output.contains("loaded:    unknown: no session bus"), "\(status)")
        #expect(status.output.contains("daemon:    not running"), "\(status)")
        #expect(status.stderr.contains("2 problems found."), "\(status)")

        let uninstall = try await sandbox.run(["gnome-extension", "uninstall"], environment: Self.noBus)
        #expect(uninstall.status == 0, "\(uninstall)")
        let after = try await sandbox.run(["gnome-extension", "status"], environment: Self.noBus)
        #expect(after.output.contains("installed: no") && after.output.contains("enabled:   no"), "\(after)")
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
