/// Whether the daemon reads the text in image items, and in which languages (`ocr`, `ocr-languages`).
///
/// ```
/// ocr = on                # recognize the text of every image item, in the background (the default)
/// ocr-languages = eng+deu # Tesseract's names, joined by '+' (a tesseract-ocr-LANG package each)
/// ```
public struct TextRecognitionSettings: Sendable, Equatable {
    public var isEnabled = true
    public var languages = "eng"

    public init() {}

    /// The keys these settings are read from.
    static let keys = ["ocr", "ocr-languages"]

    /// Reads one `key = value` line; false when `key` is not one of these settings.
    /// - Throws: the problem, for the configuration's error.
    mutating func parse(_ key: String, _ value: String) throws(TextRecognitionSettings.Problem) -> Bool {
        switch key {
        case "ocr":
            guard ["on", "off", "true", "false", "yes", "no"].contains(value.lowercased()) else {
                throw Problem(message: "ocr needs on or off.")
            }
            isEnabled = ["on", "true", "yes"].contains(value.lowercased())
        case "ocr-languages":
            let names = value.split(separator: "+", omittingEmptySubsequences: false)
            guard !value.isEmpty,
                names.allSatisfy({ name in
                    !name.isEmpty && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
                })
            else {
                throw Problem(
                    message: "ocr-languages needs Tesseract's language names joined by '+', like eng+deu "
                        + "(each one's data is the tesseract-ocr-LANG package).")
            }
            languages = value
        default:
            return false
        }
        return true
    }

    /// A value these settings refuse.
    struct Problem: Error {
        let message: String
    }
}
