internal import CGtk

/// Shows how far something has got, or that it is under way.
@MainActor
public final class ProgressBar: Widget {
    private var bar: OpaquePointer { opaque }

    public init() {
        super.init(gtk_progress_bar_new())
        gtk_progress_bar_set_show_text(bar, 1)
    }

    /// 0 to 1.
    public var fraction: Double {
        get { gtk_progress_bar_get_fraction(bar) }
        set { gtk_progress_bar_set_fraction(bar, newValue) }
    }

    /// Moves the bouncing block, for progress of unknown length.
    public func pulse() { gtk_progress_bar_pulse(bar) }

    public var text: String {
        get { gtk_progress_bar_get_text(bar).map { String(cString: $0) } ?? "" }
        set { gtk_progress_bar_set_text(bar, newValue) }
    }
}
