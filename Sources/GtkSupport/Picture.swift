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
