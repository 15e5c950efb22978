internal import CGtk

/// Shows a texture scaled to fit its space, keeping its aspect ratio.
@MainActor
public final class Picture: Widget {
    private var picture: OpaquePointer { opaque }
    public private(set) var texture: Texture?

    public init() {
        super.init(gtk_picture_new())
        gtk_picture_set_content_fit(picture, GTK_CONTENT_FIT_CONTAIN)
        gtk_picture_set_can_shrink(picture, 1)
    }

    public func setTexture(_ texture: Texture?) {
        self.texture = texture
        gtk_picture_set_paintable(picture, texture?.paintable)
    }
}

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

    public var pixelSize: Int {
        get { Int(gtk_image_get_pixel_size(image)) }
        set { gtk_image_set_pixel_size(image, Int32(newValue)) }
    }
}
