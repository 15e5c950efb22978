import PasteboardHistory

/// The preview of the selected image: its bytes read once per selection (bounded), a one-line description from
/// its header, and the picture once the renderer has drawn it.
struct ImagePreviewState {
    /// The sixel or kitty picture the last frame drew: a frame without it must clear the screen, since
    /// text written over such a picture may not erase it.
    var lastGraphic: String?
    private var cached: (id: Int64, bytes: [UInt8]?, description: String)?

    /// What the preview pane shows for an image.
    struct Shown {
        /// The line under the header: what the image is, and why it is not drawn when it is not.
        var description: String
        var rendering: ImagePreviewRenderer.Rendering?

        var isGraphic: Bool {
            if case .graphic? = rendering { return true }
            return false
        }

        /// What draws the picture with its top-left corner at `row`, `column` (0-based); empty when none.
        func overlay(at row: Int, column: Int) -> String {
            switch rendering {
            case .graphic(let sequence)?: return "\u{1B}[\(row + 1);\(column + 1)H" + sequence
            case .lines(let lines)?:
                return lines.enumerated().map {
                    "\u{1B}[\(row + 1 + $0.offset);\(column + 1)H" + $0.element + "\u{1B}[0m"
                }
                .joined()
            case .failed?, nil: return ""
            }
        }
    }

    mutating func preview(
        of item: HistoryItem, box: ImagePreviewRenderer.Request, source: any PickerSource,
        renderer: ImagePreviewRenderer?
    ) -> Shown {
        if cached?.id != item.id {
            do {
                let bytes = try source.image(of: item.id, limit: Picker.previewImageBytes)
                var description = bytes.flatMap { ImageHeader($0)?.description } ?? "image"
                if bytes == nil {
                    description += item.size > Picker.previewImageBytes ? " · too large to preview" : " · no picture"
                }
                // The words read in it, on the same line, cut to the pane's width (the picture is drawn below that
                // line): what a search found.
                if let words = try source.recognizedText(of: item.id), !words.isEmpty {
                    let line = words.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    let room = max(0, box.columns - description.count - 10)
                    if room >= 8 {
                        description += " · words: " + (line.count > room ? String(line.prefix(room - 1)) + "…" : line)
                    }
                }
                cached = (item.id, bytes, description)
            } catch {
                cached = (item.id, nil, "image · the preview cannot be read: \(error)")
            }
        }
        guard let (_, bytes, description) = cached else { return Shown(description: "image") }
        guard let renderer, let bytes, box.rows >= 1, box.columns >= 2 else { return Shown(description: description) }
        guard let rendering = renderer.rendering(for: box) else {
            renderer.render(box, image: bytes)
            return Shown(description: description + " · drawing…")
        }
        if case .failed(let reason) = rendering { return Shown(description: description + " · " + reason) }
        return Shown(description: description, rendering: rendering)
    }
}
