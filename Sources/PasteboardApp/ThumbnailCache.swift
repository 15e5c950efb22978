import GtkSupport
import PasteboardHistory

/// Thumbnails of image items, decoded once at thumbnail size and kept for the most recently shown items.
@MainActor
final class ThumbnailCache {
    /// The thumbnails' bounding square, in pixels.
    let size: Int
    private let loader: ImageLoader
    private let limit: Int
    private var textures: [Int64: Texture] = [:]
    private var recent: [Int64] = []
    /// Callbacks waiting for a thumbnail, by item and by ticket.
    private var waiting: [Int64: [Int: @MainActor (Texture) -> Void]] = [:]
    private var nextTicket = 0
    private var failed: Set<Int64> = []

    /// At most `limit` thumbnails are kept: a few screenfuls of the list or the strip. At 160 pixels one takes up to
    /// 100 KiB, so a history of screenshots holds at most about 10 MiB of them however far it is scrolled.
    init(loader: ImageLoader, size: Int, limit: Int = 96) {
        self.loader = loader
        self.size = size
        self.limit = limit
    }

    /// What `thumbnail(for:ready:)` gives: the texture, or a ticket for the callback to come, or neither when the
    /// item holds no readable image.
    enum Lookup {
        case ready(Texture)
        case pending(ticket: Int)
        case unavailable
    }

    /// The thumbnail of item `id` when decoded already; else `ready` is called once it is.
    func thumbnail(for id: Int64, ready: @escaping @MainActor (Texture) -> Void) -> Lookup {
        if let texture = textures[id] {
            touch(id)
            return .ready(texture)
        }
        guard !failed.contains(id) else { return .unavailable }
        nextTicket += 1
        let isFirst = waiting[id] == nil
        waiting[id, default: [:]][nextTicket] = ready
        if isFirst {
            loader.load(.init(id: id, maxSize: size)) { [weak self] result in
                MainLoop.post { self?.deliver(id: id, result: result) }
            }
        }
        return .pending(ticket: nextTicket)
    }

    /// Withdraws a callback (its row now shows another item); the decoding is dropped when no one else waits.
    func cancel(_ id: Int64, ticket: Int) {
        waiting[id]?[ticket] = nil
        if waiting[id]?.isEmpty ?? false {
            waiting[id] = nil
            loader.cancel(.init(id: id, maxSize: size))
        }
    }

    /// Forgets everything (the history was cleared).
    func removeAll() {
        textures = [:]
        recent = []
        failed = []
    }

    private func deliver(id: Int64, result: Result<Texture, AppError>) {
        let callbacks = (waiting.removeValue(forKey: id) ?? [:]).values
        switch result {
        case .success(let texture):
            textures[id] = texture
            touch(id)
            while recent.count > limit { textures[recent.removeFirst()] = nil }
            for callback in callbacks { callback(texture) }
        case .failure:
            failed.insert(id)
        }
    }

    private func touch(_ id: Int64) {
        if let index = recent.lastIndex(of: id) { recent.remove(at: index) }
        recent.append(id)
    }
}
