internal import CGtk
internal import CGtkObjects
public import Foundation

/// One representation a drag carries out: a MIME type and its bytes.
public struct DragRepresentation: Sendable {
    public let mimeType: String
    public let data: Data

    public init(mimeType: String, data: Data) {
        self.mimeType = mimeType
        self.data = data
    }
}

/// What another application dropped.
public enum DroppedContent: Sendable, Equatable {
    case text(String)
    /// Local paths (or URIs where a file has no path), in order.
    case files([String])
    /// The picture, as PNG.
    case image(png: Data)
}

extension Widget {
    /// Makes the widget a drag source: `content` is asked for the representations when a drag starts (nil or
    /// none: no drag). The receiving application picks the type it wants.
    public func onDragPrepare(_ content: @escaping @MainActor () -> [DragRepresentation]?) {
        let box = CallbackBox<Void, [DragRepresentation]?> { content() }
        let prepare: PbDragPrepare = { data in
            let box = CallbackBox<Void, [DragRepresentation]?>.from(data)
            guard let representations = MainActor.assumeIsolated({ box.body(()) }), !representations.isEmpty else {
                return nil
            }
            return DragContent.provider(representations)
        }
        pb_drag_source_attach(widget, prepare, box.retainedPointer(), releaseUserData)
    }

    /// Accepts files, images and text dropped from other applications; `handle` returns whether it took them.
    public func onDrop(_ handle: @escaping @MainActor (DroppedContent) -> Bool) {
        let box = CallbackBox<DroppedContent, Bool>(handle)
        let handler: PbDropHandler = { kind, text, bytes, length, data in
            let box = CallbackBox<DroppedContent, Bool>.from(data)
            let content: DroppedContent
            switch kind {
            case PB_DROP_FILES:
                content = .files(String(cString: text!).split(separator: "\n").map(String.init))
            case PB_DROP_IMAGE:
                content = .image(png: bytes.map { Data(bytes: $0, count: Int(length)) } ?? Data())
            default:
                content = .text(String(cString: text!))
            }
            return MainActor.assumeIsolated { box.body(content) } ? 1 : 0
        }
        pb_drop_target_attach(widget, handler, box.retainedPointer(), releaseUserData)
    }
}

/// Builds the content provider of a drag.
enum DragContent {
    static func provider(_ representations: [DragRepresentation]) -> UnsafeMutablePointer<GdkContentProvider>? {
        // The C side copies each payload (g_bytes_new) before these buffers go.
        let mimes = representations.map { strdup($0.mimeType) }
        defer { mimes.forEach { free($0) } }
        let buffers = representations.map { representation -> UnsafeMutablePointer<UInt8> in
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, representation.data.count))
            representation.data.copyBytes(to: buffer, count: representation.data.count)
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        var mimePointers: [UnsafePointer<CChar>?] = mimes.map { $0.map { UnsafePointer($0) } }
        var dataPointers: [UnsafePointer<UInt8>?] = buffers.map { UnsafePointer($0) }
        var lengths = representations.map { gsize($0.data.count) }
        let provider = mimePointers.withUnsafeMutableBufferPointer { mimeBuffer in
            dataPointers.withUnsafeMutableBufferPointer { dataBuffer in
                lengths.withUnsafeMutableBufferPointer { lengthBuffer in
                    pb_content_provider_new(
                        mimeBuffer.baseAddress, dataBuffer.baseAddress, lengthBuffer.baseAddress,
                        guint(representations.count))
                }
            }
        }
        return provider
    }
}
