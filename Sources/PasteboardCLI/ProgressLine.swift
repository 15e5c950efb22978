import FoundationEssentials

/// A progress line on standard error for a long import or export: `Importing: 120,000 items, 48,000 items/s,
/// about 19 s left`, redrawn in place a few times a second once the work has run `delay` seconds, and erased when it
/// ends. Silent unless standard error is a terminal, so logs and pipes never see it.
///
/// `update` is cheap enough to call for every item: it looks at the clock once every 256 calls.
final class ProgressLine {
    private let verb: String
    private let output: Output
    private let isEnabled: Bool
    private let delay: Double
    private let started = ContinuousClock.now
    private var nextDraw: Double
    private var calls = 0
    private var isShown = false

    /// How long work runs before the line appears (`PB_PROGRESS_DELAY` seconds overrides the default of 1).
    static func delay(environment: [String: String]) -> Double {
        environment["PB_PROGRESS_DELAY"].flatMap(Double.init).map { max(0, $0) } ?? 1
    }

    init(verb: String, context: Context) {
        self.verb = verb
        output = context.stderr
        isEnabled = context.stderrIsTerminal
        delay = Self.delay(environment: context.environment)
        nextDraw = delay
    }

    private var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Reports `count` items done and, when known, the fraction of the whole. With `isSampled` false the clock is
    /// read on every call (for callers reporting a few large steps).
    func update(count: Int, fraction: Double?, isSampled: Bool = true) {
        guard isEnabled else { return }
        calls &+= 1
        guard calls & 255 == 0 || count <= 1 || !isSampled else { return }
        let seconds = elapsed
        guard seconds >= nextDraw else { return }
        nextDraw = seconds + 0.25
        var text = "\r\(verb): \(Self.grouped(count)) items, \(Self.grouped(Int(Double(count) / max(seconds, 0.001)))) items/s"
        if let fraction, fraction > 0.001 {
            let left = seconds * (1 - min(fraction, 1)) / fraction
            text += left >= 90 ? ", about \(Int(left / 60 + 0.5)) min left" : ", about \(Int(left + 0.5)) s left"
        }
        output.write(text + "\u{1B}[K")
        output.flush()
        isShown = true
    }

    /// Erases the line, if it was shown.
    func finish() {
        guard isShown else { return }
        output.write("\r\u{1B}[K")
        output.flush()
        isShown = false
    }

    /// 1234567 as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 && character != "-" { out.append(",") }
            out.append(character)
        }
        return out
    }
}
