public import TextSupport

/// A picture whose text could not be recognized, with a message a user can act on.
public struct RecognitionError: ActionableError {
  /// What kind of failure, for code that reacts to one kind.
  public struct Code: Hashable, Sendable {
    let name: String
    /// Tesseract has no data for a language asked for (a `tesseract-ocr-LANG` package is missing).
    public static let missingLanguage = Code(name: "missingLanguage")
    /// The bytes are no picture Leptonica reads (PNG, JPEG, TIFF, BMP, GIF, WebP).
    public static let undecodable = Code(name: "undecodable")
    /// The picture is larger than `RecognitionLimits.largestDecodedPixels`: it is not even decoded.
    public static let tooLarge = Code(name: "tooLarge")
    /// Recognition ran past its time limit and was stopped.
    public static let timedOut = Code(name: "timedOut")
    /// Anything else Tesseract or Leptonica refused.
    public static let failed = Code(name: "failed")
  }

  public let code: Code
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }
}
