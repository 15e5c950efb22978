import ArgumentParsing
import FoundationEssentials
import PasteboardHistory
import PasteboardModel
import TextSupport

/// The `pb` command line: dispatches to subcommands, prints errors, returns the exit status.
public enum PBCommandLine {
    public static let version = PasteboardVersion.current

    static let commands: [any Command.Type] = [
        CopyCommand.self, PasteCommand.self, HistoryCommand.self, ShowCommand.self, SearchCommand.self,
        PinCommand.self, UnpinCommand.self, DeleteCommand.self, ClearCommand.self, RestoreCommand.self,
        DecodeCommand.self, ImportCommand.self, ExportCommand.self, StatsCommand.self, PruneCommand.self,
        TakeCommand.self, WatchCommand.self, PickCommand.self, PopupCommand.self, CompletionsCommand.self, DaemonCommand.self, DoctorCommand.self,
        SyncCommand.self, GnomeExtensionCommand.self,
    ]

    /// Internal commands, callable but not listed.
    static let hiddenCommands: [any Command.Type] = [ServeCommand.self, DeferredPasteCommand.self]

    static func command(named name: String) -> (any Command.Type)? {
        (commands + hiddenCommands).first { $0.spec.name == name }
    }

    /// Runs one command line (`arguments[0]` is the program name) and returns the exit status.
    public static func main(_ arguments: [String], context: Context) -> Int32 {
        let status = dispatch(arguments, context: context)
        context.stdout.flush()
        context.stderr.flush()
        return status
    }

    static func dispatch(_ arguments: [String], context: Context) -> Int32 {
        let invokedAs = (arguments.first ?? "pb").split(separator: "/").last.map(String.init) ?? "pb"
        var rest = Array(arguments.dropFirst())
        // Invoked through the pbcopy / pbpaste links, behave like the macOS tools.
        if invokedAs == "pbcopy" { return run(CopyCommand.self, rest, program: "pbcopy", context: context) }
        if invokedAs == "pbpaste" { return run(PasteCommand.self, rest, program: "pbpaste", context: context) }

        guard let first = rest.first else {
            context.stdout.write(overview())
            return 0
        }
        switch first {
        case "--help", "-h":
            context.stdout.write(overview())
            return 0
        case "--version", "-V":
            context.stdout.line("pb \(version)")
            return 0
        case "help":
            if rest.count > 1, let command = command(named: rest[1]) {
                context.stdout.write(command.spec.help(program: "pb"))
                return 0
            }
            if rest.count > 1 {
                var message = "Unknown command \(quoted(rest[1]))."
                if let near = Suggestion.nearest(to: rest[1], among: commands.map { $0.spec.name }) { message += " Did you mean '\(near)'?" }
                return usageFailure(message, usage: "pb help <command>", see: "pb --help", context: context)
            }
            context.stdout.write(overview())
            return 0
        default:
            break
        }
        rest.removeFirst()
        guard let command = command(named: first) else {
            var message = first.hasPrefix("-") ? "Unknown option \(quoted(first))." : "Unknown command \(quoted(first))."
            if let near = Suggestion.nearest(to: first.trimming(where: { $0 == "-" }), among: commands.map { $0.spec.name }) {
                message += " Did you mean '\(near)'?"
            }
            return usageFailure(message, usage: "pb <command> [options]", see: "pb --help", context: context)
        }
        return run(command, rest, program: "pb", context: context)
    }

    static func run(_ command: any Command.Type, _ arguments: [String], program: String, context: Context) -> Int32 {
        let see = program == "pb" ? "pb \(command.name) --help" : "\(program) --help"
        let shown = shownSpec(of: command, program: program)
        do {
            let parsed = try ArgumentParser.parse(arguments, as: command.spec)
            if parsed.flag("help") {
                context.stdout.write(shown.help(program: program))
                return 0
            }
            try command.run(parsed, in: context)
            return 0
        } catch let error as UsageError {
            return usageFailure(error.message, usage: shown.usage(program: program), see: see, context: context)
        } catch let error as CommandUsageError {
            return usageFailure(error.message, usage: shown.usage(program: program), see: see, context: context)
        } catch let error as CommandFailure {
            if !error.message.isEmpty { context.stderr.line("Error: " + Self.safe(error.message)) }
            return error.status
        } catch let error as HistoryError {
            context.stderr.line("Error: " + Self.safe(error.message))
            return 1
        } catch let error as PasteboardError {
            context.stderr.line("Error: " + Self.safe(error.message))
            return 1
        } catch {
            context.stderr.line("Error: " + Self.safe("\(error)"))
            return 1
        }
    }

    /// The spec as help and usage show it. Through a link the link is the command: `pbpaste [--type TYPE]`,
    /// not `pbpaste paste …` (which would fail).
    static func shownSpec(of command: any Command.Type, program: String) -> CommandSpec {
        let spec = command.spec
        if program == "pb" { return spec }
        return CommandSpec(
            name: "", abstract: spec.abstract, options: spec.options.filter { $0.long != "help" },
            positionals: spec.positionals, discussion: spec.discussion)
    }

    static func usageFailure(_ message: String, usage: String, see: String, context: Context) -> Int32 {
        context.stderr.line("Error: " + safe(message))
        context.stderr.line("Usage: \(usage)")
        context.stderr.line("  See '\(see)'.")
        return 64
    }

    /// An error message as printed: whatever text reached it (a file name, a daemon's reply), control
    /// characters other than line breaks are escaped so that no message can drive the terminal.
    static func safe(_ message: String) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map { escapedForTerminal(String($0)) }
            .joined(separator: "\n")
    }

    static func overview() -> String {
        var lines = [
            "pb \(version): the Pasteboard clipboard and clipboard history.",
            "",
            "USAGE: pb <command> [options]",
            "",
            "COMMANDS:",
        ]
        for command in commands {
            lines.append(CommandSpec.row(command.name, command.spec.abstract))
        }
        lines += [
            "",
            "Run 'pb <command> --help' for a command's options.",
            "Invoked as 'pbcopy' or 'pbpaste', pb behaves like the macOS tools.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

extension CommandSpec {
    static func row(_ left: String, _ right: String) -> String {
        let padded = left.count < 14 ? left + String(repeating: " ", count: 14 - left.count) : left + "  "
        return "  " + padded + right
    }
}
