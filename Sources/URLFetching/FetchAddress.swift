import CURLShim
import TextSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An address parsed by libcurl's own URL parser, the one the download uses: what the user typed, or where a
/// redirect points. Parsing with the same code that connects leaves no room for two readings of tricky text
/// (`http://127.0.0.1@example.com/` is example.com; `http://2130706433/` is 127.0.0.1).
public struct FetchAddress: Sendable, Equatable {
    /// The whole address, normalised.
    public let text: String
    public let scheme: String
    public let host: String
    /// The port, the scheme's default when none is given.
    public let port: Int

    public var isWeb: Bool { scheme == "http" || scheme == "https" }

    /// Parses `text`, resolved against `base` when given (a redirect's Location). Nil when libcurl cannot read it.
    public static func parse(_ text: String, relativeTo base: String? = nil) throws(FetchError) -> FetchAddress? {
        try loadLibrary()
        guard !text.utf8.contains(0), base?.utf8.contains(0) != true else { return nil }
        var whole: UnsafeMutablePointer<CChar>?
        var scheme: UnsafeMutablePointer<CChar>?
        var host: UnsafeMutablePointer<CChar>?
        var port = 0
        let code = pb_curl_parse(base, text, &whole, &scheme, &host, &port)
        defer {
            pb_curl_free(whole)
            pb_curl_free(scheme)
            pb_curl_free(host)
        }
        guard code == 0, let whole, let scheme else { return nil }
        // Resolved against a base, libcurl keeps the host as written (`127.0` stays `127.0`); read on its own it is
        // normalised (`127.0.0.0`): the second reading is the one the connection makes.
        if base != nil { return try parse(cText(whole)) }
        return FetchAddress(
            text: cText(whole), scheme: cText(scheme).lowercased(), host: host.map(cText) ?? "", port: port)
    }

    /// Checks what the user typed: an absolute http or https address with a host.
    public static func typed(_ text: String) throws(FetchError) -> FetchAddress {
        let trimmed = text.trimmingWhitespaceAndNewlines()
        let example = "for example https://example.com/picture.png"
        guard trimmed.contains("://"), let address = try parse(trimmed), address.isWeb, !address.host.isEmpty else {
            throw FetchError(
                .badAddress, "'\(trimmed.prefix(200))' is not an http or https address (\(example)).")
        }
        return address
    }

    static func loadLibrary() throws(FetchError) {
        var message = [CChar](repeating: 0, count: 256)
        guard pb_curl_load(&message, message.count) == 0 else {
            throw FetchError(.network, message.withUnsafeBufferPointer { cText($0.baseAddress!) })
        }
    }
}

/// The UTF-8 text of a C string (invalid bytes replaced).
func cText(_ pointer: UnsafePointer<CChar>) -> String {
    let bytes = UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))
    return String(decoding: bytes, as: UTF8.self)
}

func cText(_ pointer: UnsafeMutablePointer<CChar>) -> String { cText(UnsafePointer(pointer)) }
