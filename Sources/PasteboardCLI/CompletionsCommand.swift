import ArgumentParsing
import TextSupport

enum CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions", abstract: "Print a shell completion script (bash, zsh or fish).",
        positionals: [.init("SHELL", help: "bash, zsh or fish.")],
        discussion: """
            EXAMPLES:
              pb completions bash > ~/.local/share/bash-completion/completions/pb
              pb completions zsh > "${fpath[1]}/_pb"
              pb completions fish > ~/.config/fish/completions/pb.fish
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        let shell = arguments.positionals[0]
        switch shell {
        case "bash": context.stdout.write(bash())
        case "zsh": context.stdout.write(zsh())
        case "fish": context.stdout.write(fish())
        default:
            var message = "Unknown shell \(quoted(shell)). Use bash, zsh or fish."
            if let near = Suggestion.nearest(to: shell, among: ["bash", "zsh", "fish"]) { message += " Did you mean '\(near)'?" }
            throw CommandUsageError(message)
        }
    }

    static var names: [String] { PBCommandLine.commands.map { $0.spec.name } + ["help"] }

    static func options(_ command: any Command.Type) -> [String] {
        command.spec.options.map { "--\($0.long)" }
    }

    static func bash() -> String {
        var cases = ""
        for command in PBCommandLine.commands {
            cases += "        \(command.name)) opts=\"\(options(command).joined(separator: " "))\" ;;\n"
        }
        return """
            # bash completion for pb
            _pb() {
                local cur="${COMP_WORDS[COMP_CWORD]}"
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=( $(compgen -W "\(names.joined(separator: " ")) --help --version" -- "$cur") )
                    return
                fi
                local opts=""
                case "${COMP_WORDS[1]}" in
            \(cases)    esac
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
                else
                    COMPREPLY=( $(compgen -f -- "$cur") )
                fi
            }
            complete -F _pb pb

            """
    }

    static func zsh() -> String {
        var lines = ["#compdef pb", "", "_pb() {", "  local -a commands", "  commands=("]
        for command in PBCommandLine.commands {
            lines.append("    '\(command.name):\(command.spec.abstract.replacingEvery("'", with: "'\\''"))'")
        }
        lines += ["  )", "  if (( CURRENT == 2 )); then", "    _describe 'command' commands", "    return", "  fi", "  case $words[2] in"]
        for command in PBCommandLine.commands {
            let specs = command.spec.options.map { option in
                "'--\(option.long)[\(option.help.replacingEvery("'", with: "'\\''").replacingEvery("[", with: "(").replacingEvery("]", with: ")"))]\(option.takesValue ? ":value:" : "")'"
            }
            lines.append("    \(command.name)) _arguments \(specs.joined(separator: " ")) '*:file:_files' ;;")
        }
        lines += ["  esac", "}", "", "_pb \"$@\"", ""]
        return lines.joined(separator: "\n")
    }

    static func fish() -> String {
        var lines = ["# fish completion for pb", "complete -c pb -f"]
        for command in PBCommandLine.commands {
            let help = command.spec.abstract.replacingEvery("'", with: "\\'")
            lines.append("complete -c pb -n '__fish_use_subcommand' -a \(command.name) -d '\(help)'")
            for option in command.spec.options {
                let optionHelp = option.help.replacingEvery("'", with: "\\'")
                lines.append("complete -c pb -n '__fish_seen_subcommand_from \(command.name)' -l \(option.long)\(option.takesValue ? " -r" : "") -d '\(optionHelp)'")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
