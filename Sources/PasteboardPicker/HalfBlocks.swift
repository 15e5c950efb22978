/// A picture drawn with Unicode upper half blocks: each cell shows two pixels, the top one in the foreground
/// colour and the bottom one in the background, in the 256 colours every terminal (and tmux) has.
enum HalfBlocks {
    /// Lines for a box of `columns`×`rows` cells, the picture scaled to fit with its shape kept (a cell is taken
    /// to be twice as high as wide, so each half is square). Transparent pixels are blended over black.
    static func lines(_ image: PNGImage, columns: Int, rows: Int) -> [String] {
        guard columns > 0, rows > 0, image.width > 0, image.height > 0 else { return [] }
        let scale = min(Double(columns) / Double(image.width), Double(rows * 2) / Double(image.height))
        let width = max(1, min(columns, Int((Double(image.width) * scale).rounded())))
        let height = max(2, min(rows * 2, Int((Double(image.height) * scale).rounded())))
        var lines: [String] = []
        for row in 0..<((height + 1) / 2) {
            var line = ""
            var last: (Int, Int)?
            for column in 0..<width {
                let top = colour(image, column, row * 2, width, height)
                let bottom = row * 2 + 1 < height ? colour(image, column, row * 2 + 1, width, height) : 16
                if last.map({ $0 != (top, bottom) }) ?? true { line += "\u{1B}[38;5;\(top);48;5;\(bottom)m" }
                last = (top, bottom)
                line += "▀"
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines
    }

    /// The 256-colour index for target pixel (`x`, `y`) of a `width`×`height` grid: the average of up to 3×3
    /// samples of the source area it covers.
    private static func colour(_ image: PNGImage, _ x: Int, _ y: Int, _ width: Int, _ height: Int) -> Int {
        var sums = (0, 0, 0)
        var count = 0
        for sy in 0..<3 {
            for sx in 0..<3 {
                let px = min(image.width - 1, (x * 3 + sx) * image.width / (width * 3))
                let py = min(image.height - 1, (y * 3 + sy) * image.height / (height * 3))
                let offset = (py * image.width + px) * 4
                let alpha = Int(image.rgba[offset + 3])
                sums.0 += Int(image.rgba[offset]) * alpha / 255
                sums.1 += Int(image.rgba[offset + 1]) * alpha / 255
                sums.2 += Int(image.rgba[offset + 2]) * alpha / 255
                count += 1
            }
        }
        func level(_ sum: Int) -> Int { (sum / count * 5 + 127) / 255 }
        return 16 + 36 * level(sums.0) + 6 * level(sums.1) + level(sums.2)
    }
}
