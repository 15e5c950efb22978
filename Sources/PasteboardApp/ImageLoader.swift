import Dispatch
import GtkSupport
import PasteboardHistory
import PasteboardModel
import Synchronization

/// Decodes the images of history items on a thread of its own, at the size they are shown, with its own store
/// connection; reads the preview's text on another. Requests no one waits for any more are dropped before they are
/// decoded.
final class ImageLoader: Sendable {
    private let queue = DispatchQueue(label: "pasteboard-gtk.images", qos: .userInitiated)
    private let box: StoreBox
    /// Items whose request still matters, by id and size.
    private let wanted = Mutex<Set<Request>>([])
    /// The number of the newest text request (`loadText`).
    private let textRequest = Mutex(0)

    struct Request: Hashable, Sendable {
        let id: Int64
        let maxSize: Int
    }

    /// The preview's text reads (`loadText`): a queue and a connection of their own, so that they never wait behind
    /// the thumbnails being decoded.
    private let textQueue = DispatchQueue(label: "pasteboard-gtk.preview", qos: .userInitiated)
    private let textBox: StoreBox

    init(location: StoreLocation) {
        box = StoreBox(location: location)
        textBox = StoreBox(location: location)
    }

    /// Decodes item `id`'s first image representation to fit `maxSize` × `maxSize`; `completion` runs on the loader's
    /// thread (it posts to the main loop itself).
    func load(_ request: Request, completion: @escaping @Sendable (Result<Texture, AppError>) -> Void) {
        wanted.withLock { _ = $0.insert(request) }
        let box = self.box
        queue.async { [self] in
            guard self.wanted.withLock({ $0.remove(request) != nil }) else { return }
            completion(
                Result { () throws(AppError) -> Texture in
                    let item: PasteboardItem
                    do {
                        item = try box.store().pasteboardItem(id: request.id)
                    } catch let error as AppError {
                        throw error
                    } catch {
                        throw AppError("\(error)")
                    }
                    guard let image = item.representations.first(where: { $0.type.conforms(to: .image) }) else {
                        throw AppError("Item \(request.id) holds no image.")
                    }
                    do {
                        return try Texture(decoding: image.data, maxWidth: request.maxSize, maxHeight: request.maxSize)
                    } catch let error as Texture.DecodingError {
                        throw AppError(error.description)
                    } catch {
                        throw AppError("\(error)")
                    }
                })
        }
    }

    /// Reads item `id` with every representation (each payload checked against its hash) for the preview's text;
    /// `completion` runs on the loader's thread. The newest request only: one made meanwhile makes this one moot.
    func loadText(id: Int64, completion: @escaping @Sendable (Result<PasteboardItem, AppError>) -> Void) {
        let ticket = textRequest.withLock { latest in
            latest += 1
            return latest
        }
        let box = textBox
        textQueue.async { [self] in
            guard self.textRequest.withLock({ $0 == ticket }) else { return }
            completion(
                Result { () throws(AppError) -> PasteboardItem in
                    do {
                        return try box.store().pasteboardItem(id: id)
                    } catch let error as AppError {
                        throw error
                    } catch {
                        throw AppError("\(error)")
                    }
                })
        }
    }

    /// Forgets a request not yet started.
    func cancel(_ request: Request) {
        wanted.withLock { _ = $0.remove(request) }
    }
}
