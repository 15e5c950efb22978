/// Whether a session is GNOME's, from its environment.
public enum GnomeDesktop {
    /// `XDG_CURRENT_DESKTOP` names GNOME (a colon-separated list: `ubuntu:GNOME`, `GNOME-Classic:GNOME`).
    public static func isCurrent(_ environment: [String: String]) -> Bool {
        guard let desktops = environment["XDG_CURRENT_DESKTOP"] else { return false }
        return desktops.split(separator: ":").contains { $0.uppercased().hasPrefix("GNOME") }
    }
}
