internal import CTesseract
import TextSupport

/// Recognizes the text of pictures with Tesseract, in the languages it was made for.
///
/// One recognizer holds one Tesseract engine (its language models loaded once, tens of megabytes each) and is used
/// on one thread. Tesseract is built with OpenMP on Debian: the process that wants it on one core sets
/// `OMP_THREAD_LIMIT=1` in its environment before it starts (libgomp reads it when it is loaded).
///
///     let recognizer = try TextRecognizer(languages: "eng+deu")
///     let text = try recognizer.text(of: RecognitionImage(data: pngBytes))
public final class TextRecognizer {
  /// Tesseract's `TessBaseAPI`, owned: ended and deleted in `deinit`.
  private let engine: OpaquePointer
  /// The languages, as Tesseract names them (`eng+deu`).
  public let languages: String

  /// Loads the language models (`tesseract-ocr-eng`, `tesseract-ocr-deu`, … in Debian).
  /// - Parameter dataDirectory: where the `.traineddata` files are; nil for Tesseract's own default (or
  ///   `TESSDATA_PREFIX`).
  public init(languages: String, dataDirectory: String? = nil) throws(RecognitionError) {
    guard !languages.isEmpty,
      languages.split(separator: "+").allSatisfy({ name in
        !name.isEmpty
          && name.utf8.allSatisfy {
            $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
              || (0x41...0x5A).contains($0)
          }
      })
    else {
      throw RecognitionError(
        .missingLanguage,
        "\(quoted(languages)) names no languages: write Tesseract's names joined by '+' (eng+deu).")
    }
    // Leptonica prints every refused picture to standard error; the caller reports failures itself.
    _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    guard let engine = TessBaseAPICreate() else {
      throw RecognitionError(.failed, "Tesseract could not create an engine.")
    }
    // Only the LSTM engine: the legacy one is slower and Debian's "fast" models lack its data.
    guard TessBaseAPIInit2(engine, dataDirectory, languages, OEM_LSTM_ONLY) == 0 else {
      TessBaseAPIDelete(engine)
      throw RecognitionError(
        .missingLanguage,
        "Tesseract has no data for \(quoted(languages)): install the tesseract-ocr-LANG package of each "
          + "language (apt install tesseract-ocr-eng), or change ocr-languages in the configuration."
      )
    }
    // A clipboard picture is a screenshot or a photo with text anywhere: find it wherever it is.
    TessBaseAPISetPageSegMode(engine, PSM_AUTO)
    self.engine = engine
    self.languages = languages
  }

  deinit {
    TessBaseAPIEnd(engine)
    TessBaseAPIDelete(engine)
  }

  /// The text Tesseract reads in `image`, its lines as it found them, within `timeLimit`.
  /// - Throws: `timedOut` when the limit stopped it (the words read until then are dropped: a partial result
  ///   would make the item look done).
  public func text(of image: RecognitionImage, timeLimit: Duration = RecognitionLimits().timeLimit)
    throws(RecognitionError) -> String
  {
    TessBaseAPISetImage2(engine, image.pix)
    // Screenshots carry no resolution, and Tesseract warns and guesses without one: 96 dpi is a screen's.
    TessBaseAPISetSourceResolution(engine, 96)
    defer { TessBaseAPIClear(engine) }
    guard let monitor = TessMonitorCreate() else {
      throw RecognitionError(.failed, "Tesseract could not create a monitor.")
    }
    defer { TessMonitorDelete(monitor) }
    let milliseconds =
      timeLimit.components.seconds * 1000 + timeLimit.components.attoseconds / 1_000_000_000_000_000
    TessMonitorSetDeadlineMSecs(monitor, Int32(clamping: milliseconds))
    let start = ContinuousClock.now
    let status = TessBaseAPIRecognize(engine, monitor)
    if ContinuousClock.now - start >= timeLimit {
      throw RecognitionError(
        .timedOut,
        "Recognizing the \(image.originalWidth)×\(image.originalHeight) picture took longer than "
          + "\(timeLimit.components.seconds) s; it was stopped.")
    }
    guard status == 0 else {
      throw RecognitionError(
        .failed,
        "Tesseract could not recognize the \(image.originalWidth)×\(image.originalHeight) picture.")
    }
    guard let text = TessBaseAPIGetUTF8Text(engine) else { return "" }
    defer { TessDeleteText(text) }
    return String(cString: text)
  }
}

/// An engine is confined to one thread.
@available(*, unavailable)
extension TextRecognizer: Sendable {}
