public import FoundationEssentials

/// The control protocol's constants and its JSON coding: one JSON object per line. See `docs/protocol.md`.
public enum ControlProtocol {
    /// Sent in `ping` and `status` replies; raised when a request or reply changes meaning.
    public static let version = 2
    /// A longer line is not a control message: the daemon closes such a connection.
    public static let maxLineBytes = 1 << 20

    /// One message as a line: sorted keys (so equal messages are equal bytes), a trailing newline.
    public static func line<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The protocol's types hold strings, numbers and booleans only: encoding them cannot fail.
        guard var data = try? encoder.encode(value) else { preconditionFailure("a control message did not encode") }
        data.append(0x0A)
        return data
    }

    /// Decodes one line (without its newline); unknown fields are ignored.
    public static func decode<T: Decodable>(_ type: T.Type, from line: Data) throws(ControlError) -> T {
        do {
            return try JSONDecoder().decode(type, from: line)
        } catch {
            throw ControlError("Not a control message: \(Self.summary(of: error)).", code: .malformed, cause: error)
        }
    }

    static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON" }
        switch error {
        case .keyNotFound(let key, let context):
            return "\"\(key.stringValue)\" is missing" + Self.place(context)
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.codingPath.isEmpty ? "not a JSON object" : "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" is invalid"
        @unknown default:
            return "not valid"
        }
    }

    private static func place(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "" : " in \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
    }
}
