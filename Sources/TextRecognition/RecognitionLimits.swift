/// The bounds one recognition stays within: pixels decoded, pixels recognized, and time.
public struct RecognitionLimits: Sendable, Equatable {
  /// A picture with more pixels than this is refused from its header, before anything is decoded (8-bit gray and
  /// 32-bit colour copies of 64 megapixels take 320 MB together).
  public var largestDecodedPixels: Int
  /// A picture with more pixels than this is scaled down to it first (a 4K screen's 8.3 megapixels: text on
  /// screen stays readable, and Tesseract's memory and time follow the pixel count).
  public var largestRecognizedPixels: Int
  /// The longest one picture may take; Tesseract stops at the next word past it.
  public var timeLimit: Duration

  public init(
    largestDecodedPixels: Int = 64_000_000, largestRecognizedPixels: Int = 3840 * 2160,
    timeLimit: Duration = .seconds(30)
  ) {
    self.largestDecodedPixels = largestDecodedPixels
    self.largestRecognizedPixels = largestRecognizedPixels
    self.timeLimit = timeLimit
  }
}
