internal import CGtk

/// An icon from the theme, or a small texture, at a fixed size.
@MainActor
public final class Image: Widget {
    private var image: OpaquePointer { opaque }
    public private(set) var texture: Texture?

    public init(icon: String, size: Int = 16) {
        super.init(gtk_image_new_from_icon_name(icon))
        gtk_image_set_pixel_size(image, Int32(size))
    }

    public func setIcon(_ name: String) {
        texture = nil
        gtk_image_set_from_icon_name(image, name)
    }

    public func setTexture(_ texture: Texture) {
        self.texture = texture
        gtk_image_set_from_paintable(image, texture.paintable)
    }
}
