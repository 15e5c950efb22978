// The daemon's text recognizer, a process of its own: Tesseract's memory, threads and crashes stay out of the daemon
// (and out of every pb command, which would otherwise load libtesseract and its libraries at start-up).
//
//     pasteboard-ocr --languages eng+deu --time-limit 30
//
// It lowers its own priority (SCHED_IDLE, nice 19) and bounds its address space, then answers requests on its
// standard input until that closes. The daemon starts it with OMP_THREAD_LIMIT=1 (one core).
//
// Wire (the daemon's RecognitionProcess writes the other side): a request is a 4-byte little-endian length and the
// picture's bytes; a reply is one status byte (0 text, 1 the picture cannot be read, 2 timed out, 3 failed), a 4-byte
// little-endian length and UTF-8 (the text, or the message).
import Glibc
import TextRecognition

func fail(_ message: String) -> Never {
  let line = Array("pasteboard-ocr: \(message)\n".utf8)
  _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(2)
}

var languages = "eng"
var limits = RecognitionLimits()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--languages":
    guard let value = arguments.popFirst() else { fail("--languages needs a value (eng+deu)") }
    languages = value
  case "--time-limit":
    guard let value = arguments.popFirst(), let seconds = Int(value), seconds > 0 else {
      fail("--time-limit needs a number of seconds")
    }
    limits.timeLimit = .seconds(seconds)
  default:
    fail(
      "unknown argument \(argument); usage: pasteboard-ocr [--languages eng+deu] [--time-limit SECONDS]"
    )
  }
}

// Runs only when no other process wants the processor, and never before anything else at a higher niceness.
var idle = sched_param(sched_priority: 0)
/// SCHED_IDLE (<linux/sched.h>), which Glibc's module leaves out (it needs _GNU_SOURCE).
let schedIdle: Int32 = 5
_ = sched_setscheduler(0, schedIdle, &idle)
_ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
// 3 GiB of address space: the language models, the largest picture decoded (64 megapixels in colour and in gray),
// Tesseract's working copies, and libgomp's stacks. A picture that needs more fails alone.
var space = rlimit(rlim_cur: 3 << 30, rlim_max: 3 << 30)
_ = setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &space)

func readExactly(_ count: Int) -> [UInt8]? {
  var bytes = [UInt8](repeating: 0, count: count)
  var done = 0
  while done < count {
    let got = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress! + done, count - done) }
    if got < 0 && errno == EINTR { continue }
    if got <= 0 { return nil }
    done += got
  }
  return bytes
}

func writeAll(_ bytes: [UInt8]) {
  var done = 0
  while done < bytes.count {
    let wrote = bytes.withUnsafeBytes { write(1, $0.baseAddress! + done, bytes.count - done) }
    if wrote < 0 && errno == EINTR { continue }
    if wrote <= 0 { exit(1) }  // the daemon went away
    done += wrote
  }
}

func littleEndian(_ value: UInt32) -> [UInt8] {
  [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
}

/// The largest request read: the daemon sends no picture beyond its own bound (64 MiB).
let largestRequest = 256 << 20

/// Answers requests until standard input closes; the recognizer is released on return (Tesseract reports the
/// language models it still holds as leaks at exit otherwise).
func serve(languages: String, limits: RecognitionLimits) {
  let recognizer: TextRecognizer
  do {
    recognizer = try TextRecognizer(languages: languages)
  } catch {
    fail(error.message)
  }
  while let header = readExactly(4) {
    let length = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
    guard length <= largestRequest, let data = readExactly(length) else { exit(1) }
    var status: UInt8 = 0
    var reply: String
    do {
      reply = try recognizer.text(
        of: RecognitionImage(data: data, limits: limits), timeLimit: limits.timeLimit)
    } catch {
      switch error.code {
      case .undecodable, .tooLarge: status = 1
      case .timedOut: status = 2
      default: status = 3
      }
      reply = error.message
    }
    let text = Array(reply.utf8)
    writeAll([status] + littleEndian(UInt32(text.count)) + text)
  }
}

serve(languages: languages, limits: limits)
exit(0)
