import ArgumentParsing
import DisplayBackends
import DisplayPaste
import FoundationEssentials
import PasteboardControl
import PasteboardHistory
import PasteboardModel
import PasteboardPicker
import PasteboardSystem
import SystemSupport
import TextSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `pb pick`: choose from the history in a full-screen terminal picker.
enum PickCommand: Command {
    static let spec = CommandSpec(
        name: "pick",
        abstract: "Choose an item from the history in a full-screen picker and put it back on the clipboard.",
        options: [
            .init("print", help: "Write the chosen item's bytes to standard output instead of restoring it."),
            .init("mode", value: "MODE", help: "Start filtering by substring (default), fuzzy or regex."),
            .init("paste", help: "Then paste it into the window that had the keyboard focus before."),
            PasteOptions.key,
            .init("images", value: "HOW", help: "Draw images with kitty, sixel, blocks or text; auto (default) asks."),
        ],
        discussion: """
            Type to filter. Up/Down (or Ctrl-P/Ctrl-N), Page Up/Down and the mouse wheel move; a click selects.
            Enter restores the item with all its representations; Alt-Enter (or Ctrl-T) only its text.
            Tab marks several items, restored as one text joined by newlines; Ctrl-O instead puts them on
            the clipboard one per paste, in the order marked (a paste stack, through the daemon). Ctrl-R switches between
            substring, fuzzy and regex filtering. Ctrl-S pins or unpins, Ctrl-D twice deletes. Esc quits
            (exit status 130). The picker runs on the terminal even when standard output is a pipe.

            With --paste, the window that had the keyboard focus when pb pick started gets the focus back
            and a paste keystroke (XTest), once the item is on the clipboard. Terminals mostly paste with
            --paste-key ctrl+shift+v or shift+insert. On Wayland the keystroke comes from a virtual keyboard
            (zwp_virtual_keyboard_manager_v1: sway, wlroots) into the window the compositor focuses once the
            picker's terminal has closed; a terminal that stays open gets it after a second.

            Images are previewed with the kitty graphics protocol or sixel when the terminal answers for
            them, else with half-blocks; chafa draws them where installed (kitty shows PNG without it).
            Without chafa, the preview describes the image in one line.

            EXAMPLES:
              pb pick
              pb pick --print > chosen.txt
              pb pick --images blocks
              pb pick --paste --paste-key shift+insert
            """)

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        var mode = FilterMode.substring
        if let text = arguments.value("mode") {
            guard let given = FilterMode(rawValue: text) else {
                throw CommandUsageError("Unknown mode \(quoted(text)). Use substring, fuzzy or regex.")
            }
            mode = given
        }
        var graphics: TerminalGraphics?
        if let text = arguments.value("images"), text != "auto" {
            guard let given = TerminalGraphics(rawValue: text) else {
                throw CommandUsageError(
                    "Unknown image drawing \(quoted(text)). Use auto, kitty, sixel, blocks or text.")
            }
            graphics = given
        }
        let keystroke = try PasteOptions.keystroke(arguments)
        let pastes = arguments.flag("paste")
        if pastes && arguments.flag("print") { throw CommandUsageError("--paste and --print do not go together.") }
        // The window to paste into is the one focused now, before the picker's terminal may take the focus.
        var target: (any PasteTarget)?
        if pastes {
            do {
                target = try PasteTargets.focused(environment: context.environment)
            } catch {
                throw CommandFailure(error.message, cause: error)
            }
        }
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard terminal >= 0 else {
            throw CommandFailure(
                "pb pick needs a terminal (/dev/tty: \(SystemError.lastReason)). "
                    + "In a script, use 'pb history --format dmenu' with a launcher and 'pb decode'.")
        }
        defer { close(terminal) }
        let store = try context.store()
        let source: StorePickerSource
        do {
            source = try StorePickerSource(store: store) { event, id in
                // A deleted item is never served again, by a daemon that owns the clipboard with it either. (The
                // picker's status line cannot show a failure after the fact; the delete itself has happened.)
                if event == "deleted", let problem = context.forgetOnDisplay([id]) {
                    context.stderr.line("Warning: the daemon could not be told to stop serving item \(id) (\(problem)).")
                }
            }
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
        // Changes made elsewhere while it is open (a copy, an import, a sync arrival) show at once.
        source.changes = DaemonChangeSignal(client: context.daemon)
        let result: Picker.Result
        do {
            result = try Picker(source: source, mode: mode, graphics: graphics, environment: context.environment).run(
                terminal: terminal)
        } catch {
            throw CommandFailure(error.message, cause: error)
        }
        if case .stacked(let ids) = result {
            if arguments.flag("print") {
                throw CommandFailure("A paste stack goes on the clipboard, one item per paste: Ctrl-O is not for --print.")
            }
            let clipboard = try context.clipboard()
            do {
                try clipboard.stack(ids: ids)
            } catch {
                throw error.failure
            }
            if ids.count > 1 {
                context.stderr.line("Item \(ids[0]) is on the clipboard; \(ids.count - 1) more follow, one per paste.")
            }
            try paste(into: target, keystroke: keystroke, context: context)
            return
        }
        // Quitting is not an error to report: status 130 and nothing printed, as fzf does.
        guard case .picked(let ids, let plainText) = result else { throw CommandFailure("", status: 130) }
        let single = ids.count == 1 && !plainText
        if single && !arguments.flag("print") {
            // The item itself goes back: a restore, which moves it to the top without reading its payloads.
            let clipboard = try context.clipboard()
            do {
                try clipboard.restore(
                    id: ids[0], store: store, fallback: context.ownerFallback(once: false, expire: nil))
            } catch {
                throw error.failure
            }
            try paste(into: target, keystroke: keystroke, context: context)
            return
        }
        let chosen: PasteboardItem
        if single {
            chosen = try store.pasteboardItem(id: ids[0])
        } else {
            chosen = try store.joinedText(of: ids, separator: "\n")
        }
        if arguments.flag("print") {
            try PasteCommand.writeBest(of: chosen, wanted: nil, context: context, what: "Item \(ids[0])")
            return
        }
        // Several items (or one as text only) make a new text: a copy.
        let clipboard = try context.clipboard()
        do {
            try clipboard.copy(
                chosen, metadata: CaptureMetadata(source: "pb", selection: "clipboard"), store: store,
                fallback: context.ownerFallback(once: false, expire: nil))
        } catch {
            throw error.failure
        }
        try paste(into: target, keystroke: keystroke, context: context)
    }

    /// With `--paste`, types the paste keystroke into `target`, the window focused when the picker started.
    private static func paste(
        into target: (any PasteTarget)?, keystroke: PasteKeystroke, context: Context
    ) throws {
        guard let target else { return }
        do {
            if target.needsFocusBack {
                // The picker's terminal has the focus until it closes, after pb exits: type from a process
                // that waits for that.
                try DeferredPaste.start(
                    executable: "/proc/self/exe", arguments: [DeferredPasteCommand.spec.name, keystroke.rawValue],
                    environment: context.environment,
                    runtime: RuntimeDirectory.standard(environment: context.environment))
            } else {
                try target.paste(keystroke)
            }
        } catch {
            throw CommandFailure("The item is on the clipboard, but it was not pasted: \(error.message)", cause: error)
        }
    }
}

/// `--paste-key`, shared by `pb pick --paste` and `pb restore --paste`.
enum PasteOptions {
    static let key = CommandSpec.Option(
        "paste-key", value: "KEYS", help: "The paste keystroke: ctrl+v (default), shift+insert or ctrl+shift+v.")

    /// The keystroke `--paste-key` names, Ctrl+V without it.
    static func keystroke(_ arguments: ParsedArguments) throws -> PasteKeystroke {
        guard let text = arguments.value("paste-key") else { return .ctrlV }
        guard let given = PasteKeystroke(rawValue: text.lowercased()) else {
            throw CommandUsageError("Unknown paste keystroke \(quoted(text)). Use ctrl+v, shift+insert or ctrl+shift+v.")
        }
        return given
    }
}

/// `pb __paste KEYS`: types the paste keystroke of `pb pick --paste` once the picker's terminal, its standard
/// input, has closed (Wayland, where the keys go to the focused window). Not listed.
enum DeferredPasteCommand: Command {
    static let spec = CommandSpec(
        name: "__paste", abstract: "Type the paste keystroke once the terminal on standard input closes (internal).",
        positionals: [.init("KEYS", help: "ctrl+v, shift+insert or ctrl+shift+v.")])

    static func run(_ arguments: ParsedArguments, in context: Context) throws {
        guard let keystroke = PasteKeystroke(rawValue: arguments.positionals[0]) else {
            throw CommandUsageError("Unknown paste keystroke \(quoted(arguments.positionals[0])).")
        }
        DeferredPaste.waitForTerminalToClose()
        do {
            try PasteTargets.focused(environment: context.environment).paste(keystroke)
        } catch {
            throw CommandFailure("The item is on the clipboard, but it was not pasted: \(error.message)", cause: error)
        }
    }
}
