import GtkSupport
import PasteboardHistory

/// The widgets of one history row: a chip in the strip, a line in the list. Made once per slot, then bound to
/// whichever item the slot shows.
@MainActor
final class HistoryRowView {
    let root: Box
    let layout: AppState.Layout
    private let icon: Image
    private let thumbnail: Picture
    private let title = Label()
    private let meta = Label()
    private let pin = Image(icon: "view-pin-symbolic", size: 14)
    /// The row's place among the marked items (1, 2, …): the order a paste stack serves them in.
    private let markBadge = Label()
    /// What a screen reader reads for the row, before its mark.
    private var accessibleBase = ""
    /// The row's place among the marked items, nil when it is not marked.
    private(set) var markNumber: Int?
    /// The item shown, and the ticket of a thumbnail still to come.
    private(set) var itemID: Int64?
    private var waitingTicket: Int?
    /// The item as last bound, with its details: bound again unchanged, the row is left as it is.
    private var boundItem: HistoryItem?
    /// The themed icon set last (nil while it shows a texture).
    private var iconName: String?
    /// The search whose matches the title highlights (set before `bind`), and the one it was bound with.
    var highlight: SearchMatcher?
    /// The title's markup when it highlights matches (nil: plain text), for the tests' log.
    private(set) var titleMarkup: String?
    private var boundHighlight: (text: String, mode: HistoryFilter.Mode)?

    static let stripThumbnailHeight = 64

    init(layout: AppState.Layout) {
        self.layout = layout
        pin.tooltip = "Pinned"
        markBadge.addStyleClass("mark-badge")
        markBadge.isVisible = false
        meta.addStyleClass("dim-label")
        meta.addStyleClass("row-meta")
        meta.textAlignment = 0
        title.textAlignment = 0
        title.isTargetable = false
        thumbnail = Picture()
        switch layout {
        case .strip:
            icon = Image(icon: "text-x-generic-symbolic", size: 14)
            meta.expandsHorizontally = true
            meta.ellipsizeEnd()
            let header = Box(.horizontal, spacing: 4, [markBadge, icon, meta, pin])
            title.wrap(lines: 3)
            title.ellipsizeEnd()
            title.verticalAlignment = .start
            title.expandsVertically = true
            title.setWidthChars(18, max: 18)
            thumbnail.setSizeRequest(width: 160, height: Self.stripThumbnailHeight)
            thumbnail.expandsVertically = true
            root = Box(.vertical, spacing: 4, [header, title, thumbnail])
            root.addStyleClass("chip")
            root.setSizeRequest(width: 176, height: 104)
        case .list:
            icon = Image(icon: "text-x-generic-symbolic", size: 24)
            title.ellipsizeEnd()
            title.expandsHorizontally = true
            let text = Box(.vertical, spacing: 2, [title, meta])
            text.expandsHorizontally = true
            text.verticalAlignment = .center
            root = Box(.horizontal, spacing: 10, [markBadge, icon, text, pin])
            root.addStyleClass("history-row")
        }
    }

    /// Shows the row as marked, `number` in the order marked (the paste stack's order), or not (nil).
    func setMark(_ number: Int?) {
        guard number != markNumber else { return }
        markNumber = number
        markBadge.text = number.map(String.init) ?? ""
        markBadge.isVisible = number != nil
        root.setStyleClass("marked", number != nil)
        applyAccessibleLabel()
    }

    private func applyAccessibleLabel() {
        root.setAccessibleRowLabel(accessibleBase + (markNumber.map { ", marked \($0)" } ?? ""))
    }

    /// Sets the title of `item`, the matches of the search (`highlight`) in bold; returns the text shown.
    @discardableResult
    private func showTitle(of item: HistoryItem) -> String {
        let text = Self.shortened(ItemFormatting.title(of: item), to: layout == .strip ? 90 : 240)
        let marked = item.kind == .image ? nil : SearchHighlighter.markup(text, matcher: highlight)
        titleMarkup = marked
        if ItemFormatting.isLink(item) {
            // A link, in the theme's link colour; not clickable itself (a click on the row copies it).
            title.setMarkup("<a href=\"\(Label.escapeMarkup(text))\">\(marked ?? Label.escapeMarkup(text))</a>")
        } else if let marked {
            title.setMarkup(marked)
        } else {
            title.text = text
        }
        return text
    }

    /// `text` cut to `limit` characters (with "…"), about what the row can show: GTK lays out (shapes) the whole
    /// text of a label each time it measures it, before ellipsizing, and the store's previews run to 200 characters
    /// and more; that shaping was most of the cost of binding a row.
    static func shortened(_ text: String, to limit: Int) -> String {
        guard let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), end < text.endIndex
        else { return text }
        return text[..<end] + "…"
    }

    /// Shows `item`; an image's thumbnail comes from `thumbnails` (at once, or when decoded, then `shown` is told).
    /// Returns whether anything was set (false: the row showed this item already, as it is).
    ///
    /// GTK binds a row again whenever the list's rows are replaced, even when the slot shows the same item as
    /// before (a search that still matches it): then nothing is set, so nothing is measured or drawn again.
    @discardableResult
    func bind(_ item: HistoryItem, thumbnails: ThumbnailCache, shown: @escaping @MainActor (Int64) -> Void) -> Bool {
        let searched = highlight.map { ($0.text, $0.mode) }
        let sameSearch = searched?.0 == boundHighlight?.text && searched?.1 == boundHighlight?.mode
        boundHighlight = searched
        if item == boundItem {
            // Listed again by another search: only the title's highlighting may change.
            if !sameSearch { showTitle(of: item) }
            return false
        }
        if let previous = itemID, let ticket = waitingTicket, previous != item.id {
            thumbnails.cancel(previous, ticket: ticket)
        }
        waitingTicket = nil
        itemID = item.id
        boundItem = item
        let text = showTitle(of: item)
        meta.text = ItemFormatting.meta(of: item)
        let kindName = ItemFormatting.kindName(of: item)
        icon.setAccessibleLabel(kindName)
        // What a screen reader reads for the row: its title, kind and time (and size), and whether it is pinned.
        accessibleBase = "\(item.kind == .image ? "" : text + ", ")\(kindName), \(meta.text)\(item.isPinned ? ", pinned" : "")"
        applyAccessibleLabel()
        pin.isVisible = item.isPinned
        root.setStyleClass("pinned", item.isPinned)
        root.tooltip = item.kind == .image ? text : String(item.preview.prefix(300))
        let shownKind = item.kind == .url && !ItemFormatting.isLink(item) ? HistoryItem.Kind.text : item.kind
        let name = ItemFormatting.icon(for: shownKind)
        if name != iconName {
            icon.setIcon(name)
            iconName = name
        }
        let isImage = item.kind == .image
        thumbnail.setTexture(nil)
        thumbnail.isVisible = isImage && layout == .strip
        title.isVisible = !(isImage && layout == .strip)
        guard isImage else { return true }
        let id = item.id
        let apply: @MainActor (Texture) -> Void = { [weak self] texture in
            guard let self, self.itemID == id else { return }
            self.waitingTicket = nil
            if self.layout == .strip {
                self.thumbnail.setTexture(texture)
            } else {
                self.icon.setTexture(texture)
                self.iconName = nil
            }
            shown(id)
        }
        switch thumbnails.thumbnail(for: id, ready: apply) {
        case .ready(let texture): apply(texture)
        case .pending(let ticket): waitingTicket = ticket
        case .unavailable: break
        }
        return true
    }
}
