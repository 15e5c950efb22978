internal import CGtk
internal import CGtkObjects
public import Foundation

/// A decoded image, ready to show in a `Picture` or an `Image`.
///
/// Textures are immutable and GObject reference counting is atomic, so one may be decoded on a worker thread and
/// shown on the main thread.
public final class Texture: @unchecked Sendable {
    /// The GdkTexture. Never changed after `init`; see the type's note on threads.
    let pointer: UnsafeMutableRawPointer
    public let width: Int
    public let height: Int

    /// Why an image could not be decoded.
    public struct DecodingError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Decodes `data` (PNG, JPEG, GIF, …: whatever GdkPixbuf reads), scaled down to fit `maxWidth` × `maxHeight`
    /// when it is larger, so a thumbnail of a big photo costs a thumbnail's memory.
    public init(decoding data: Data, maxWidth: Int = 0, maxHeight: Int = 0) throws(DecodingError) {
        var error: UnsafeMutablePointer<GError>?
        let pixbuf = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            pb_pixbuf_load_fitting(
                buffer.bindMemory(to: guchar.self).baseAddress, gsize(buffer.count), Int32(maxWidth), Int32(maxHeight),
                &error)
        }
        guard let pixbuf else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown format"
            if let error { g_error_free(error) }
            throw DecodingError(description: "Cannot decode the image: \(message).")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        width = Int(gdk_pixbuf_get_width(pixbuf))
        height = Int(gdk_pixbuf_get_height(pixbuf))
        guard let texture = gdk_texture_new_for_pixbuf(pixbuf) else {
            throw DecodingError(description: "Cannot make a texture of the image.")
        }
        pointer = UnsafeMutableRawPointer(texture)
    }

    deinit { g_object_unref(pointer) }

    var paintable: OpaquePointer { OpaquePointer(pointer) }
}
