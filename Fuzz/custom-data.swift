// libFuzzer target: the browsers' containers of a web page's own clipboard types, which any application on the
// display can offer: Chromium's `chromium/x-web-custom-data`, Firefox's `application/x-moz-custom-clipdata` and
// WebKitGTK's `org.webkitgtk.WebKit.custom-pasteboard-data`, and the secret check over them.
//
// The first byte picks the container; the rest is its bytes. Checked besides "does not crash": what parses encodes
// back to data that parses to the same entries, and a container whose entries name a marker is a secret.
//
// Built and run by scripts/fuzz.sh; seeds in Fuzz/corpus/custom-data/.
import Foundation

@testable import ClipboardBackend

private let containers = [
    ConcealedMarkers.webCustomDataType, ConcealedMarkers.mozCustomClipDataType, ConcealedMarkers.webKitCustomDataType,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCustomData(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let bytes, size > 0 else { return 0 }
    let container = containers[Int(bytes[0]) % containers.count]
    let payload = Data(bytes: bytes + 1, count: size - 1)
    let isSecret = ConcealedMarkers.isConcealed(customData: payload, container: container)
    var types: [String]?
    switch container {
    case ConcealedMarkers.webCustomDataType:
        if let entries = WebCustomData.entries(in: payload) {
            types = entries.map(\.type)
            let again = WebCustomData.entries(in: WebCustomData.encode(entries))
            precondition(again.map { $0.map(\.type) } == types && again.map { $0.map(\.value) } == entries.map(\.value))
        }
    case ConcealedMarkers.mozCustomClipDataType:
        if let entries = MozCustomClipData.entries(in: payload) {
            types = entries.map(\.type)
            let again = MozCustomClipData.entries(in: MozCustomClipData.encode(entries))
            precondition(again.map { $0.map(\.type) } == types && again.map { $0.map(\.value) } == entries.map(\.value))
        }
    default:
        if let entries = WebKitCustomData.entries(in: payload) {
            types = entries.map(\.type)
            let again = WebKitCustomData.entries(in: WebKitCustomData.encode(entries))
            precondition(again.map { $0.map(\.type) } == types && again.map { $0.map(\.value) } == entries.map(\.value))
        }
    }
    if let types, types.contains(where: ConcealedMarkers.isMarker) {
        precondition(isSecret, "a container naming a marker is not a secret")
    }
    return 0
}
