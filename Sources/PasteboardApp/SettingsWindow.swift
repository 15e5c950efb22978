import Foundation
import GtkSupport
import PasteboardConfiguration
import PasteboardControl
import PasteboardModel

/// "Pasteboard Settings" (Ctrl+,): what the configuration file says, as fields. Apply writes the file in place
/// through `ConfigurationEditor` (comments and unknown lines kept, only the changed settings rewritten, replaced at
/// once), checked by the same parser `pb` reads it with: a bad value shows that parser's message and writes nothing.
/// The daemon is then asked to read the file again (`reload-config`).
@MainActor
final class SettingsWindow {
    static let title = "Pasteboard Settings"
    /// The window while it is open: Ctrl+, again brings it forward.
    private static var current: SettingsWindow?

    /// One setting of the file and the control showing it.
    private struct Field {
        enum Control {
            /// One value (`max-age = 90d`); empty: not set.
            case value(Entry)
            /// Several values, separated by commas (`ignore-app = A`, `ignore-app = B`).
            case list(Entry)
            /// Several values, one per line (regular expressions may hold commas).
            case lines(TextView)
            /// on or off.
            case toggle(CheckButton)
        }
        let key: String
        let control: Control
        /// What the control showed when the file was read: a control left so keeps the file's lines as they are.
        var shown = ""
        /// The file's values then.
        var values: [String] = []
    }

    let window = Window(title: SettingsWindow.title, width: 720, height: 640)
    private let path: String
    private let environment: [String: String]
    private let daemon: ControlClient
    private let log: TestLog
    private var fields: [Field] = []
    let applyButton = Button(label: "_Apply")
    let closeButton = Button(label: "_Close")
    let problem = Label()
    let status = Label()
    let syncStatus = Label("…")

    /// Opens the window, or brings the open one forward.
    static func present(parent: Window, environment: [String: String], daemon: ControlClient, log: TestLog) {
        if let current {
            current.window.present()
            return
        }
        let settings = SettingsWindow(parent: parent, environment: environment, daemon: daemon, log: log)
        current = settings
        settings.window.present()
        log.note("settings open")
    }

    private init(parent: Window, environment: [String: String], daemon: ControlClient, log: TestLog) {
        self.environment = environment
        self.daemon = daemon
        self.log = log
        path = Configuration.path(environment: environment)
        window.setTransient(for: parent, modal: false)

        var sections: [Widget] = []
        sections.append(heading("History"))
        sections.append(explanation("Pinned items are always kept. Sizes like 500M or 2G; durations like 12h, 90d or 4w."))
        sections.append(row("Keep at most (items)", value("max-items", placeholder: "no limit")))
        sections.append(row("Keep at most (size)", value("max-bytes", placeholder: "no limit, e.g. 2G")))
        sections.append(row("Forget after", value("max-age", placeholder: "never, e.g. 90d")))
        sections.append(explanation("Per kind of item, counting only that kind (keep images 7 days: 7d under Forget after):"))
        let columns = Box(.horizontal, spacing: 6, [fixedLabel("", width: 10)] + ["Items", "Size", "Forget after"].map {
            let header = fixedLabel($0, width: 12)
            header.setSizeRequest(width: Self.cellWidth)
            return header
        })
        sections.append(columns)
        for (kind, name) in zip(RetentionPolicy.kinds, ["Text", "Links", "HTML", "Images", "Files", "Other data"]) {
            let cells: [Widget] = [
                fixedLabel(name, width: 10),
                value("max-items.\(kind)", placeholder: "", accessible: "\(name): keep at most (items)", width: 12),
                value("max-bytes.\(kind)", placeholder: "", accessible: "\(name): keep at most (size)", width: 12),
                value("max-age.\(kind)", placeholder: "", accessible: "\(name): forget after", width: 12),
            ]
            sections.append(Box(.horizontal, spacing: 6, cells))
        }

        sections.append(heading("Recording"))
        sections.append(row("Ignore applications", list("ignore-app", placeholder: "KeePassXC, Bitwarden")))
        sections.append(row("Ignore copies offering", list("ignore-type", placeholder: "image/*, public.png")))
        sections.append(row("Leave out types", list("drop-type", placeholder: "text/html")))
        sections.append(row("Ignore text matching (one per line)", lines("ignore-text")))
        sections.append(row("Largest item", value("max-item-size", placeholder: "no limit, e.g. 50M")))
        sections.append(toggle("primary", label: "Record the _PRIMARY selection (text selected with the mouse)"))

        sections.append(heading("Allow Paste"))
        sections.append(explanation("Copies from these applications or of these types wait for your Allow before they are pasted."))
        sections.append(row("Ask for applications", list("ask-app", placeholder: "KeePassXC")))
        sections.append(row("Ask for types", list("ask-type", placeholder: "text/x-password")))
        sections.append(row("Question waits", value("ask-timeout", placeholder: "30s")))

        sections.append(heading("Sync"))
        syncStatus.textAlignment = 0
        syncStatus.wrap()
        syncStatus.isSelectable = true
        syncStatus.setAccessibleLabel("Sync status")
        sections.append(syncStatus)
        sections.append(row("Largest item to sync", value("sync-max-item-size", placeholder: "20M")))
        sections.append(row("Keep on this device: applications", list("sync-ignore-app", placeholder: "KeePassXC")))
        sections.append(row("Keep on this device: types", list("sync-ignore-type", placeholder: "image/*")))
        sections.append(toggle("sync-clipboard", label: "Put items from other _devices on the clipboard"))
        sections.append(selectable(
            "To pair a device, share a folder between them (Syncthing), then run on the first one\n"
                + "  pb sync init --folder ~/Sync/pasteboard\nand on the other, with the key it printed,\n"
                + "  pb sync join --folder ~/Sync/pasteboard", name: "How to pair a device"))

        sections.append(heading("Popup hotkey"))
        sections.append(selectable(
            "Bind a key in your desktop's keyboard settings (Super+V, for instance) to the command\n"
                + "  pb popup --paste\nto pick an item and paste it where you were typing, or to  pb popup  to copy only.\n"
                + "Keep the popup ready from your session's autostart with  pasteboard-gtk --background",
            name: "How to set the popup hotkey"))

        let form = Box(.vertical, spacing: 8, sections)
        form.setMargins(14)
        let scroller = ScrolledWindow(form)
        scroller.setScrolling(horizontal: false, vertical: true)
        scroller.expandsVertically = true
        scroller.setAccessibleLabel("Settings")
        scroller.setAccessibleLabel("Settings", ofInner: .scrollbar)

        problem.addStyleClass("error")
        problem.textAlignment = 0
        problem.wrap()
        problem.isSelectable = true
        problem.isVisible = false
        problem.setAccessibleLabel("Problem")
        status.addStyleClass("dim-label")
        status.textAlignment = 0
        status.wrap()
        status.expandsHorizontally = true
        status.setAccessibleLabel("Settings status")
        status.text = "Settings are kept in \(path)."
        applyButton.addStyleClass("suggested-action")
        let buttons = Box(.horizontal, spacing: 8, [status, closeButton, applyButton])
        let content = Box(.vertical, spacing: 8, [scroller, problem, buttons])
        content.setMargins(10)
        window.setChild(content)

        applyButton.onClick { [weak self] in self?.apply() }
        closeButton.onClick { [weak self] in self?.window.close() }
        window.addShortcut("Escape", scope: .global) { [weak self] in
            self?.window.close()
            return true
        }
        window.addShortcut("<Control>s", scope: .global) { [weak self] in
            self?.apply()
            return true
        }
        window.onCloseRequest {
            SettingsWindow.current = nil
            return false
        }
        window.onActiveChange { [log] active in if active { log.note("settings active") } }
        window.setDefaultWidget(applyButton)
        if case .value(let first) = fields.first?.control { window.setFocus(first) }
        load()
        refreshSyncStatus()
    }

    // MARK: - Reading and writing

    /// Shows what the file says now.
    private func load() {
        let editor: ConfigurationEditor
        do {
            editor = try ConfigurationEditor.load(path: path)
        } catch {
            show(problem: error.message)
            return
        }
        for index in fields.indices {
            let values = editor.values(of: fields[index].key)
            switch fields[index].control {
            case .value(let entry): entry.text = values.last ?? ""
            case .list(let entry): entry.text = values.joined(separator: ", ")
            case .lines(let view): view.text = values.joined(separator: "\n")
            case .toggle(let check): check.isActive = values.last.map { ["on", "true", "yes"].contains($0.lowercased()) } ?? false
            }
            fields[index].values = values
            fields[index].shown = shown(fields[index].control)
        }
    }

    /// Writes the changed settings, or shows why not (and writes nothing).
    func apply() {
        var editor: ConfigurationEditor
        do {
            editor = try ConfigurationEditor.load(path: path)
        } catch {
            show(problem: error.message)
            return
        }
        var changed: [String] = []
        for field in fields where shown(field.control) != field.shown {
            editor.set(field.key, to: values(of: field))
            changed.append(field.key)
        }
        guard !changed.isEmpty else {
            status.text = "Nothing changed."
            problem.isVisible = false
            return
        }
        do {
            try editor.save(to: path)
        } catch {
            show(problem: error.message)
            log.note("settings refused: \(error.message)")
            return
        }
        problem.isVisible = false
        load()
        var saved = "Saved \(changed.joined(separator: ", ")) to \(path)."
        do {
            _ = try daemon.perform(.reloadConfiguration, timeout: 2)
            saved += " The daemon uses them now."
        } catch {
            saved += " The daemon reads them when it starts (\(error.message))."
        }
        status.text = saved
        log.note("settings saved: \(changed.joined(separator: " "))")
    }

    private func show(problem message: String) {
        problem.text = message
        problem.isVisible = true
        status.text = "Nothing was written."
    }

    /// What a control shows, to tell whether the user changed it.
    private func shown(_ control: Field.Control) -> String {
        switch control {
        case .value(let entry), .list(let entry): return entry.text
        case .lines(let view): return view.text
        case .toggle(let check): return check.isActive ? "on" : "off"
        }
    }

    /// The values a changed control stands for.
    private func values(of field: Field) -> [String] {
        func trimmed(_ parts: [Substring]) -> [String] {
            parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        switch field.control {
        case .value(let entry): return trimmed([Substring(entry.text)])
        case .list(let entry): return trimmed(entry.text.split(separator: ","))
        case .lines(let view): return trimmed(view.text.split(separator: "\n"))
        // Off is written only where the file said something: the default is off.
        case .toggle(let check): return check.isActive ? ["on"] : (field.values.isEmpty ? [] : ["off"])
        }
    }

    /// Asks `pb sync status` (beside this program, else on PATH), off the main thread.
    private func refreshSyncStatus() {
        let environment = environment
        let label = syncStatus
        Thread.detachNewThread {
            let text = Self.runSyncStatus(environment: environment)
            MainLoop.post { label.text = text }
        }
    }

    nonisolated private static func runSyncStatus(environment: [String: String]) -> String {
        let beside = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("pb").path
        let process = Process()
        if FileManager.default.isExecutableFile(atPath: beside) {
            process.executableURL = URL(fileURLWithPath: beside)
            process.arguments = ["sync", "status"]
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["pb", "sync", "status"]
        }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "Sync status unknown: pb could not be started (\(error.localizedDescription))."
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        // "Error: This device does not sync. …" is a state here, not a failure.
        if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
        return text.isEmpty ? "Sync status unknown (pb sync status said nothing)." : text
    }

    // MARK: - Building

    private func heading(_ text: String) -> Label {
        let label = Label(text)
        label.addStyleClass("preview-heading")
        label.textAlignment = 0
        label.horizontalAlignment = .start
        return label
    }

    private func explanation(_ text: String) -> Label {
        let label = Label(text)
        label.addStyleClass("dim-label")
        label.textAlignment = 0
        label.horizontalAlignment = .start
        label.wrap()
        return label
    }

    private func selectable(_ text: String, name: String) -> Label {
        let label = explanation(text)
        label.isSelectable = true
        label.setAccessibleLabel(name)
        return label
    }

    private func fixedLabel(_ text: String, width: Int) -> Label {
        let label = Label(text)
        label.textAlignment = 0
        label.setWidthChars(width, max: width)
        return label
    }

    private func row(_ title: String, _ control: Widget) -> Box {
        let label = fixedLabel(title, width: 34)
        label.wrap()
        control.expandsHorizontally = true
        return Box(.horizontal, spacing: 8, [label, control])
    }

    private func value(_ key: String, placeholder: String, accessible: String? = nil, width: Int? = nil) -> Entry {
        let entry = Entry(placeholder: placeholder)
        entry.setAccessibleLabel(accessible ?? Self.names[key] ?? key)
        if width != nil { entry.setSizeRequest(width: Self.cellWidth) }
        entry.onActivate { [weak self] in self?.apply() }
        fields.append(Field(key: key, control: .value(entry)))
        return entry
    }

    private func list(_ key: String, placeholder: String) -> Entry {
        let entry = Entry(placeholder: placeholder)
        entry.setAccessibleLabel((Self.names[key] ?? key) + " (separated by commas)")
        entry.onActivate { [weak self] in self?.apply() }
        fields.append(Field(key: key, control: .list(entry)))
        return entry
    }

    private func lines(_ key: String) -> Widget {
        let view = TextView()
        view.makeEditable()
        view.setAccessibleLabel((Self.names[key] ?? key) + " (one per line)")
        view.setSizeRequest(height: 60)
        view.addStyleClass("view")
        fields.append(Field(key: key, control: .lines(view)))
        return view
    }

    private func toggle(_ key: String, label: String) -> CheckButton {
        let check = CheckButton(label: label)
        fields.append(Field(key: key, control: .toggle(check)))
        return check
    }

    /// The width of a cell of the kinds' grid, and of its column's heading (an entry is not narrower).
    private static let cellWidth = 168

    /// The accessible names of the single fields, as the rows label them.
    private static let names = [
        "max-items": "Keep at most (items)", "max-bytes": "Keep at most (size)", "max-age": "Forget after",
        "ignore-app": "Ignore applications", "ignore-type": "Ignore copies offering", "drop-type": "Leave out types",
        "ignore-text": "Ignore text matching", "max-item-size": "Largest item", "ask-app": "Ask for applications",
        "ask-type": "Ask for types", "ask-timeout": "Question waits", "sync-max-item-size": "Largest item to sync",
        "sync-ignore-app": "Keep on this device: applications", "sync-ignore-type": "Keep on this device: types",
    ]
}
