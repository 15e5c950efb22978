// libFuzzer target: the parsers of type names — MIME types, `--type` arguments, X11 target names and file
// name extensions — and the capture plan built from a list of X11 targets.
//
// Each line of the input is one name. Selection owners choose their target names freely, so everything here
// sees hostile text: `ContentType(mimeType:)`, `ContentType.resolve`, `ContentType(x11Target:)`,
// `ContentType(filenameExtension:)` and `TargetPlan.decide`.
//
// Built and run by scripts/fuzz.sh; seeds in Fuzz/corpus/content-type-names/.
import Foundation

@testable import PasteboardModel
@testable import ClipboardBackend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzContentTypeNames(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    let text = String(decoding: data, as: UTF8.self)
    let names = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for name in names.prefix(64) {
        if let type = ContentType(mimeType: name) {
            precondition(!type.identifier.isEmpty)
            precondition(ContentType(mimeType: name) == type, "not deterministic")
            // A dynamic type stands for its MIME type: parsing that again gives the same type.
            if let mime = type.dynamicMIMEType {
                precondition(ContentType(mimeType: mime) == type, "\(mime) does not map back to \(type)")
                precondition(type.mimeTypes == [mime])
            }
            _ = type.supertypes
            _ = type.x11Targets
            _ = type.conforms(to: .text)
        }
        if let type = ContentType.resolve(name) {
            precondition(!type.identifier.isEmpty)
            // What `pb export` writes (the identifier) is read back as the same type by `pb import`.
            precondition(ContentType.resolve(type.identifier) == type, "\(type) does not resolve to itself")
            _ = type.localizedDescription
            _ = type.preferredFilenameExtension
            _ = TargetPlan.targets(for: type)
        }
        if let type = ContentType(x11Target: name) {
            precondition(type.identifier.isEmpty == false)
        }
        if let type = ContentType(filenameExtension: name) {
            precondition(type.isDeclared)
        }
        _ = TargetPlan.contentType(forTarget: name)
    }
    switch TargetPlan.decide(names) {
    case .fetch(let targets):
        precondition(!targets.isEmpty)
        precondition(targets.allSatisfy(names.contains), "fetching a target that was not offered")
        precondition(Set(targets).count == targets.count, "a target fetched twice")
    case .secret, .nothing:
        break
    }
    return 0
}
