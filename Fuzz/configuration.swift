// libFuzzer target: the configuration file (`Configuration.parse`) and the size and duration units it uses
// (`Units.bytes`, `Units.duration`, also used by `pb copy --expire` and `pb prune`), then the parsed capture
// rules applied to an item.
//
// Built and run by scripts/fuzz.sh; seeds and a dictionary in Fuzz/corpus/configuration/ and
// Fuzz/configuration.dict.
import Foundation

@testable import PasteboardConfiguration
@testable import PasteboardModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    for line in text.split(separator: "\n").prefix(16) {
        let value = String(line)
        if let bytes = Units.bytes(value) { precondition(bytes >= 0, "negative size from \(value.debugDescription)") }
        if let seconds = Units.duration(value) {
            precondition(seconds > 0 && seconds.isFinite, "duration \(seconds) from \(value.debugDescription)")
        }
    }
    guard let configuration = try? Configuration.parse(text, path: "config") else { return 0 }
    if let maxAge = configuration.retention.maxAge { precondition(maxAge > 0 && maxAge.isFinite) }
    if let maxBytes = configuration.retention.maxBytes { precondition(maxBytes >= 0) }
    // Regular expressions from the file are user input too; keep the subject short so a slow pattern cannot
    // turn into a timeout here.
    var item = PasteboardItem()
    item.setString("123456 secret-token https://example.com/")
    item.setData(Data([0x89, 0x50, 0x4E, 0x47]), forType: .png)
    _ = configuration.capture.rejection(of: item, application: "Firefox")
    return 0
}
