internal import CTesseract

/// A picture decoded by Leptonica into 8-bit gray, scaled down to the limits' pixel count when larger.
///
/// The header is read first (`pixReadHeaderMem`): a picture beyond `largestDecodedPixels` is refused before any
/// memory is spent on it.
public final class RecognitionImage {
  /// Leptonica's `PIX`, owned: destroyed in `deinit`.
  let pix: UnsafeMutablePointer<PIX>
  /// The size recognized, after scaling.
  public let width: Int
  public let height: Int
  /// The size of the picture as it was given.
  public let originalWidth: Int
  public let originalHeight: Int

  /// Decodes `data` (PNG, JPEG, TIFF, BMP, GIF or WebP).
  public init(data: [UInt8], limits: RecognitionLimits = RecognitionLimits())
    throws(RecognitionError)
  {
    var format: Int32 = 0
    var width: Int32 = 0
    var height: Int32 = 0
    var bitsPerSample: Int32 = 0
    var samplesPerPixel: Int32 = 0
    var isColormapped: Int32 = 0
    let header = data.withUnsafeBufferPointer { buffer in
      pixReadHeaderMem(
        buffer.baseAddress, buffer.count, &format, &width, &height, &bitsPerSample,
        &samplesPerPixel,
        &isColormapped)
    }
    guard header == 0, width > 0, height > 0 else {
      throw RecognitionError(
        .undecodable,
        "The picture (\(data.count) bytes) is in no format Leptonica reads (PNG, JPEG, TIFF, BMP, GIF, WebP)."
      )
    }
    let pixels = Int(width) * Int(height)
    guard pixels <= limits.largestDecodedPixels else {
      throw RecognitionError(
        .tooLarge,
        "The picture is \(width)×\(height) pixels, more than the \(limits.largestDecodedPixels / 1_000_000) "
          + "megapixels read for recognition: it was not decoded.")
    }
    guard let read = data.withUnsafeBufferPointer({ pixReadMem($0.baseAddress, $0.count) }) else {
      throw RecognitionError(
        .undecodable, "Leptonica could not decode the \(width)×\(height) picture.")
    }
    var decoded: UnsafeMutablePointer<PIX>? = read
    defer { pixDestroy(&decoded) }
    guard let converted = pixConvertTo8(read, 0) else {
      throw RecognitionError(
        .failed, "Leptonica could not turn the \(width)×\(height) picture into gray.")
    }
    var gray: UnsafeMutablePointer<PIX>? = converted
    if pixels > limits.largestRecognizedPixels {
      let factor = Float((Double(limits.largestRecognizedPixels) / Double(pixels)).squareRoot())
      let scaled = pixScaleGeneral(gray, factor, factor, 0, 0)
      pixDestroy(&gray)
      guard let scaled else {
        throw RecognitionError(
          .failed, "Leptonica could not scale the \(width)×\(height) picture down.")
      }
      gray = scaled
    }
    guard let gray else { throw RecognitionError(.failed, "Leptonica lost the picture.") }  // never nil here
    self.pix = gray
    self.width = Int(pixGetWidth(gray))
    self.height = Int(pixGetHeight(gray))
    self.originalWidth = Int(width)
    self.originalHeight = Int(height)
  }

  deinit {
    var owned: UnsafeMutablePointer<PIX>? = pix
    pixDestroy(&owned)
  }
}

/// An image is used by one recognizer on one thread at a time.
@available(*, unavailable)
extension RecognitionImage: Sendable {}
