import Foundation

/// What the app remembers between runs: the layout of the history. One `key = value` line each, in
/// `$XDG_STATE_HOME/pasteboard/app-state` (default `~/.local/state/pasteboard/app-state`).
struct AppState: Equatable {
    /// How the history is laid out.
    enum Layout: String {
        /// Chips side by side, scrolled sideways (the original app).
        case strip
        /// Rows one above the other.
        case list
    }

    var layout: Layout = .strip

    /// The state file for `environment`.
    static func url(environment: [String: String]) -> URL {
        let base: URL
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = URL(fileURLWithPath: state, isDirectory: true)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(
                ".local/state", isDirectory: true)
        }
        return base.appendingPathComponent("pasteboard/app-state")
    }

    /// The saved state; the defaults when there is none. Unknown keys and values are passed over, so an older app
    /// reads a newer app's file.
    static func load(from url: URL) -> AppState {
        var state = AppState()
        guard let data = FileManager.default.contents(atPath: url.path) else { return state }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "layout", let layout = Layout(rawValue: parts[1]) { state.layout = layout }
        }
        return state
    }

    /// Writes the state (a new file moved into place, so a crash never leaves half a file).
    func save(to url: URL) throws(AppError) {
        let text = "layout = \(layout.rawValue)\n"
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw AppError("Cannot save the layout to \(url.path): \(error.localizedDescription)")
        }
    }
}
