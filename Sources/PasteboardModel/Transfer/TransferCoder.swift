public import FoundationEssentials

/// An encoder that turns a value into the bytes of a `CodableRepresentation`.
///
/// `JSONEncoder` and `PropertyListEncoder` conform. Conform your own encoder to transfer another format:
///
/// ```swift
/// struct YAMLEncoder: TransferEncoder {
///     func encode<T: Encodable>(_ value: T) throws -> Data { … }
/// }
/// ```
public protocol TransferEncoder: Sendable {
    /// The bytes that represent `value`.
    func encode<T: Encodable>(_ value: T) throws -> Data
}

/// A decoder that turns the bytes of a `CodableRepresentation` back into a value.
///
/// `JSONDecoder` and `PropertyListDecoder` conform.
public protocol TransferDecoder: Sendable {
    /// The value of `type` that `data` represents.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONEncoder: TransferEncoder {}
extension JSONDecoder: TransferDecoder {}
extension PropertyListEncoder: TransferEncoder {}
extension PropertyListDecoder: TransferDecoder {}
