import ArgumentParsing
import FoundationEssentials
import PasteboardConfiguration
import PasteboardHistory
import PasteboardSync
import TextSupport
#if canImport(Glibc)
import Glibc
#endif

/// `pb sync init|join|status|leave|remove-device`: end-to-end encrypted sync of the history through a shared folder.
enum SyncCommand: Command {
    static let spec = CommandSpec(
        name: "sync", abstract: "Sync the history with your other devices through a shared folder (Syncthing).",
        options: [
            .init("folder", value: "DIR", help: "The shared folder (init, join)."),
            .init("passphrase", help: "init: derive the key from a passphrase read like a join key, instead of a new key."),
            .init("name", value: "NAME", help: "init, join: this device's name for the others (default: the host name)."),
        ],
        positionals: [
            .init("ACTION", help: "init, join, status, leave or remove-device."),
            .init("DEVICE", help: "remove-device: the name or id of the device to remove (see status).", optional: true),
        ],
        discussion: "Only encrypted files go into the folder; the daemon writes and applies them.\n"
            + "init prints the key as its last line; join reads it from the terminal, or standard input.\n\n"
            + "EXAMPLES:\n  pb sync init --folder ~/Sync/pasteboard\n  pb sync join --folder ~/Sync/pasteboard\n"
            + "  pb sync status\n  pb sync remove-device old-laptop")

    static let actions = ["init", "join", "status", "leave", "remove-device"]

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let action = arguments.positionals.first ?? ""
        guard actions.contains(action) else {
            var message = "Unknown sync action \(quoted(action)); give one of \(actions.joined(separator: ", "))."
            if let near = Suggestion.nearest(to: action, among: actions) { message += " Did you mean '\(near)'?" }
            throw CommandUsageError(message)
        }
        if action == "remove-device" {
            guard arguments.positionals.count == 2, !arguments.positionals[1].isEmpty else {
                throw CommandUsageError("pb sync remove-device needs the name or id of one device (see 'pb sync status').")
            }
        } else if arguments.positionals.count > 1 {
            throw CommandUsageError("pb sync \(action) takes no further arguments (\(quoted(arguments.positionals[1])) given).")
        }
        do {
            switch action {
            case "init": try initialize(arguments, context)
            case "join": try join(arguments, context)
            case "status": try status(context)
            case "remove-device": try removeDevice(arguments.positionals[1], context)
            default:
                try SyncSession.leave(location: context.location)
                context.stdout.line("This device no longer syncs. Its history stays; the folder is left to the other devices.")
            }
        } catch let error as SyncError {
            throw CommandFailure(error.message, cause: error)
        }
    }

    static func folder(_ arguments: ParsedArguments, _ action: String) throws -> URL {
        guard let path = arguments.value("folder"), !path.isEmpty else {
            throw CommandUsageError("pb sync \(action) needs --folder DIR, the folder your devices share.")
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory {
            throw CommandFailure("\(url.path) is a file, not a folder.")
        }
        if action == "join", !isDirectory {
            throw CommandFailure("\(url.path) does not exist. Wait until the shared folder has synced to this device.")
        }
        return url
    }

    /// One line from the terminal (prompted on standard error), or the first line of standard input.
    static func secret(_ prompt: String, _ context: Context) throws -> String {
        let line: String
        if context.stdinIsTerminal {
            context.stderr.write(prompt)
            context.stderr.flush()
            // Not echoed: a key or passphrase should not stay on the screen or in a terminal's scrollback.
            var saved = termios()
            let hidden = tcgetattr(0, &saved) == 0
            if hidden {
                var quiet = saved
                quiet.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(0, TCSANOW, &quiet)
            }
            line = readLine(strippingNewline: true) ?? ""
            if hidden {
                tcsetattr(0, TCSANOW, &saved)
                context.stderr.line("")
            }
        } else {
            let data = context.readInput().prefix(4096)
            line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        let trimmed = line.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { throw CommandFailure("No key given.") }
        return trimmed
    }

    static func initialize(_ arguments: ParsedArguments, _ context: Context) throws {
        let url = try folder(arguments, "init")
        let passphrase = arguments.flag("passphrase") ? try secret("Passphrase: ", context) : nil
        let phrase = try SyncSession.initialize(
            folder: url, location: context.location, passphrase: passphrase, name: arguments.value("name"))
        context.stdout.line("Created the sync folder \(url.path); this device syncs with it once 'pb daemon' runs.")
        if let phrase {
            context.stdout.line("On each other device, run 'pb sync join --folder DIR' and type this key:")
            context.stdout.line(phrase)
        } else {
            context.stdout.line("On each other device, run 'pb sync join --folder DIR' and type the same passphrase.")
        }
    }

    static func join(_ arguments: ParsedArguments, _ context: Context) throws {
        let url = try folder(arguments, "join")
        let key = try secret("Key phrase (or passphrase): ", context)
        try SyncSession.join(folder: url, location: context.location, secret: key, name: arguments.value("name"))
        context.stdout.line("This device now syncs with \(url.path); 'pb daemon' brings the history over.")
    }

    static func status(_ context: Context) throws {
        guard let status = try SyncStatus.load(location: context.location) else {
            throw CommandFailure("This device does not sync. Start with 'pb sync init --folder DIR' or 'pb sync join --folder DIR'.")
        }
        let out = context.stdout
        out.line("folder:  \(status.folder.path)")
        out.line("device:  \(status.device)")
        out.line("key:     epoch \(status.epoch)")
        if let problem = status.keyProblem {
            out.line("  \(escapedForTerminal(problem)).")
            out.line("  Join again with the new key phrase: 'pb sync leave', then 'pb sync join --folder \(status.folder.path)'.")
        }
        out.line("devices:")
        if status.devices.isEmpty { out.line("  none heard from yet") }
        let now = Date()
        for device in status.devices {
            var name = device.name.map { "\(escapedForTerminal($0)) (\(device.id.rawValue))" } ?? device.id.rawValue
            if device.isThisDevice { name += " (this device)" }
            if device.isRemoved { name += " (removed)" }
            out.line("  \(name): last seen \(ago(now.timeIntervalSince(device.lastSeen))) (\(stamp(device.lastSeen)))")
        }
        out.line("pending: \(status.pendingItems) item\(status.pendingItems == 1 ? "" : "s") waiting for payloads, "
            + "\(status.unappliedSegments) segment\(status.unappliedSegments == 1 ? "" : "s") not yet applied")
        if status.rejected.isEmpty {
            out.line("rejected: none")
        } else {
            out.line("rejected: \(status.rejected.count) file\(status.rejected.count == 1 ? "" : "s") (modified, truncated or foreign; never applied)")
            if status.rejectedListIsFull { out.line("  (the list is full: more such files may be in the folder; they are read again each round)") }
            // One line per reason, with a count and a few of the files: a folder may hold thousands of junk files.
            for group in status.rejectedByReason {
                if group.count == 1 {
                    out.line("  \(group.examples[0]): \(group.reason)")
                } else {
                    let more = group.count > group.examples.count ? ", …" : ""
                    out.line("  \(group.count) files: \(group.reason) (\(group.examples.joined(separator: ", "))\(more))")
                }
            }
        }
    }

    static func removeDevice(_ name: String, _ context: Context) throws {
        let removal = try SyncSession.removeDevice(name, location: context.location)
        let out = context.stdout
        let shown = removal.removedName.map { "\(escapedForTerminal($0)) (\(removal.removed))" } ?? removal.removed.rawValue
        out.line("Removed \(shown): the folder has a new key (epoch \(removal.epoch)), which it cannot open.")
        out.line("The new key goes to: \(removal.keptDevices.map { escapedForTerminal($0) }.joined(separator: ", ")); each takes it up on its next round.")
        if !removal.devicesWithoutKey.isEmpty {
            out.line("These devices never announced a device key and must join again with the new key: "
                + removal.devicesWithoutKey.map { escapedForTerminal($0) }.joined(separator: ", "))
        }
        out.line("Devices that join from now on need the new key:")
        out.line(removal.phrase)
    }

    /// A time as UTC, to the second.
    static func stamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return CFormat.string(
            "%04d-%02d-%02d %02d:%02d:%02d UTC", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour),
            Int(parts.tm_min), Int(parts.tm_sec))
    }

    static func ago(_ seconds: TimeInterval) -> String {
        switch seconds {
        case ..<60: return "\(Int(max(0, seconds))) s ago"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86400: return "\(Int(seconds / 3600)) h ago"
        default: return "\(Int(seconds / 86400)) d ago"
        }
    }
}
