import FoundationEssentials
import PasteboardControl
import PasteboardSystem

/// What `pb` says about "Allow Paste": after `pb copy --ask`, and in `pb doctor`.
enum AllowPasteNotice {
    /// The daemon's view of Allow Paste, or nil when no daemon answers.
    static func status(_ clipboard: SystemClipboard) -> (approvers: Int, gating: String)? {
        do {
            return status(of: try clipboard.daemon.perform(.status, timeout: 2))
        } catch {
            return nil
        }
    }

    static func status(of reply: ControlReply) -> (approvers: Int, gating: String) {
        (reply.approvers ?? 0, reply.pasteGating ?? "unsupported")
    }

    /// After a copy that asks: a notice on standard error when nobody can be asked, so pastes will be refused.
    static func afterCopy(id: Int64, clipboard: SystemClipboard, stderr: Output) {
        guard clipboard.kind.hasDisplay else {
            stderr.line("Notice: no display; item \(id) asks before pasting once it is restored on a display.")
            return
        }
        guard let status = status(clipboard) else { return }  // checked before copying; it stopped meanwhile
        if let problem = problem(status) { stderr.line("Notice: \(problem).") }
    }

    /// Why pastes of items that ask will not be asked about, or nil when an app is there to ask.
    static func problem(_ status: (approvers: Int, gating: String)) -> String? {
        if status.gating == "unsupported" {
            return "this display's backend serves every reader at once: items that ask are not held"
        }
        if status.approvers == 0 {
            return "no Pasteboard History app is running to ask, so pastes of items that ask are refused "
                + "(start pasteboard-gtk)"
        }
        return nil
    }

    /// `pb doctor`'s line, from the daemon's `status` reply when it answered (nil: it did not; not asked again).
    static func doctorLine(_ clipboard: SystemClipboard, status reply: ControlReply?, environment: [String: String])
        -> String
    {
        let onWaylandOnly = (environment["WAYLAND_DISPLAY"] ?? "").isEmpty == false
            && (environment["DISPLAY"] ?? "").isEmpty
        var line: String
        if !clipboard.kind.hasDisplay && !onWaylandOnly {
            line = "headless: items that ask are asked about on a display only"
        } else if let status = reply.map(status(of:)) {
            if let problem = problem(status) {
                line = "note: " + problem
            } else {
                line = "asks through \(status.approvers) app\(status.approvers == 1 ? "" : "s")"
            }
            if status.gating == "named-readers" { line += "; the paste log names the reading application" }
        } else {
            line = "items that ask need the daemon ('pb daemon') and the app (pasteboard-gtk); without them "
                + "'pb copy --ask' refuses"
        }
        if onWaylandOnly {
            line += ". Wayland data-control does not say who reads: the question and the paste log cannot "
                + "name the reader"
        }
        return "paste:    " + line
    }
}
