import ArgumentParsing
import GnomeExtension
import PasteboardControl
import TextSupport

/// `pb gnome-extension install | uninstall | status`: the Pasteboard GNOME Shell extension, which lets the daemon
/// see every copy on GNOME Wayland (with its source application), clear a secret's leftover and paste.
enum GnomeExtensionCommand: Command {
    static let spec = CommandSpec(
        name: "gnome-extension",
        abstract: "Install, remove or check the GNOME Shell extension pb needs on GNOME Wayland.",
        options: [
            .init("shell-version", value: "N", help: "Install the variant for GNOME Shell N (default: the installed one)."),
            .init("dir", value: "DIR", help: "Install into or remove from DIR/<uuid> instead, and leave the settings alone."),
        ],
        positionals: [.init("ACTION", help: "install, uninstall or status.")],
        discussion: """
            install writes the extension into $XDG_DATA_HOME/gnome-shell/extensions/ (for GNOME 43-44, or
            the ES-module variant for 45 and later) and enables it in org.gnome.shell: it loads at the next
            login. status says whether it is installed, enabled, loaded by the running shell and used by the
            daemon, and what to do when one is missing.

            EXAMPLES:
              pb gnome-extension install
              pb gnome-extension status
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let installer = ExtensionInstaller(environment: context.environment)
        let settings = ShellSettings(environment: context.environment)
        var shellMajor: Int?
        if let text = arguments.value("shell-version") {
            guard let major = Int(text.split(separator: ".").first ?? ""), (3...999).contains(major) else {
                throw CommandUsageError("--shell-version needs a GNOME Shell version such as 43 or 46, not \(quoted(text)).")
            }
            shellMajor = major
        }
        let custom = arguments.value("dir").map { $0 + "/" + ExtensionSource.uuid }
        if let custom, !custom.hasPrefix("/") {
            throw CommandUsageError("--dir needs an absolute directory, not \(quoted(arguments.value("dir") ?? "")).")
        }
        switch arguments.positionals[0] {
        case "install":
            guard let major = shellMajor ?? installer.shellMajorVersion() else {
                throw CommandFailure(
                    "GNOME Shell is not installed here (gnome-shell --version gave nothing); name the version to "
                        + "install for with --shell-version N.")
            }
            let directory = try custom ?? installer.userDirectory()
            try run { () throws(ExtensionError) in try installer.install(into: directory, shellMajor: major) }
            context.stdout.line("Installed the Pasteboard GNOME Shell extension (for GNOME \(major)) in \(directory).")
            guard custom == nil else { return }
            try run { () throws(ExtensionError) in try settings.enable(ExtensionSource.uuid) }
            context.stdout.line("Enabled it in org.gnome.shell enabled-extensions.")
            switch ShellPresence.check(environment: context.environment) {
            case .loaded(let version) where version == UInt32(ExtensionSource.version):
                context.stdout.line("The running GNOME Shell has it loaded; restart 'pb daemon' to use it.")
            default:
                context.stdout.line("Log out and in again: GNOME Shell loads new extensions at login.")
            }
        case "uninstall":
            let directory = try custom ?? installer.userDirectory()
            if custom == nil {
                try run { () throws(ExtensionError) in try settings.disable(ExtensionSource.uuid) }
            }
            try run { () throws(ExtensionError) in try installer.uninstall(from: directory) }
            context.stdout.line("Removed the Pasteboard GNOME Shell extension from \(directory).")
        case "status":
            let problems = status(installer: installer, settings: settings, context: context)
            if problems > 0 { throw CommandFailure("\(problems) problem\(problems == 1 ? "" : "s") found.") }
        case let other:
            var message = "Unknown action \(quoted(other)). Use install, uninstall or status."
            if let near = Suggestion.nearest(to: other, among: ["install", "uninstall", "status"]) {
                message += " Did you mean '\(near)'?"
            }
            throw CommandUsageError(message)
        }
    }

    private static func run(_ body: () throws(ExtensionError) -> Void) throws {
        do {
            try body()
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
    }

    /// Prints one line per step (installed, enabled, loaded, used by the daemon); returns the number missing.
    static func status(installer: ExtensionInstaller, settings: ShellSettings, context: Context) -> Int {
        let out = context.stdout
        let want = ExtensionSource.version
        var problems = 0
        var installed: String?
        for directory in [try? installer.userDirectory(), ExtensionInstaller.systemDirectory(prefix: "/usr")]
            .compactMap({ $0 })  // no HOME: only the system directory is looked at
        {
            guard let version = installer.installedVersion(in: directory) else { continue }
            if version == want {
                installed = directory
                out.line("installed: yes, version \(version), in \(directory)")
            } else {
                out.line("installed: PROBLEM: version \(version) in \(directory); this pb needs \(want): run 'pb gnome-extension install'")
                problems += 1
                installed = ""
            }
            break
        }
        if installed == nil {
            out.line("installed: no (run 'pb gnome-extension install')")
            problems += 1
        }
        do {
            let enabled = try settings.enabledExtensions().contains(ExtensionSource.uuid)
            let userDisabled = try settings.userExtensionsDisabled()
            if !enabled {
                out.line("enabled:   no (run 'pb gnome-extension install', which enables it)")
                problems += 1
            } else if userDisabled {
                out.line("enabled:   PROBLEM: disable-user-extensions is true: run 'pb gnome-extension install'")
                problems += 1
            } else {
                out.line("enabled:   yes")
            }
        } catch {
            out.line("enabled:   unknown: \(error.message)")
            problems += 1
        }
        switch ShellPresence.check(environment: context.environment) {
        case .noBus(let why):
            out.line("loaded:    unknown: no session bus (\(why))")
            problems += 1
        case .notLoaded:
            out.line("loaded:    no: the running GNOME Shell has not loaded it (log out and in after installing)")
            problems += 1
        case .loaded(let version) where version != UInt32(want):
            out.line("loaded:    PROBLEM: the shell runs version \(version); log out and in to load \(want)")
            problems += 1
        case .loaded:
            out.line("loaded:    yes")
        }
        do {
            let reply = try context.clipboard().daemon.perform(.status, timeout: 2)
            if reply.backend == "gnome" {
                out.line("daemon:    uses it (pid \(reply.pid.map(String.init) ?? "?"))")
            } else {
                out.line("daemon:    PROBLEM: the daemon runs with the \(reply.backend ?? "?") backend: restart 'pb daemon'")
                problems += 1
            }
        } catch {
            out.line("daemon:    not running (start it with 'pb daemon')")
            problems += 1
        }
        return problems
    }
}
