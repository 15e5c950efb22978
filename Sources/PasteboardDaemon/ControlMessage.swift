import Foundation

/// One line of the control protocol: a JSON object. See `docs/protocol.md`.
enum ControlMessage {
    static func parse(_ line: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: line, options: [])) as? [String: Any]
    }

    static func encode(_ object: [String: Any]) -> Data {
        // Only plain JSON values are ever passed here, so serialization cannot fail.
        var data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }
}
