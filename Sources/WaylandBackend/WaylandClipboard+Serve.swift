import CWayland
public import ClipboardBackend
import FoundationEssentials
public import PasteboardModel
#if canImport(Glibc)
import Glibc
#endif

extension WaylandClipboard {
    // MARK: - Owning

    /// The MIME types offered for `item`, each with what is served for it: every representation under each of
    /// its names, as `TargetPlan.servedTargets(for:)` gives them (MIME names first; the X11 names too, which
    /// XWayland and older clients ask for).
    static func offeredTypes(for item: PasteboardItem) -> (order: [String], data: [String: OwnedSource.Payload]) {
        let served = TargetPlan.servedTargets(for: item)
        let names = served.map(\.name)
        let order = names.filter { $0.contains("/") } + names.filter { !$0.contains("/") }
        var data: [String: OwnedSource.Payload] = [:]
        for target in served where data[target.name] == nil {
            data[target.name] = OwnedSource.Payload(
                representation: item.representations[target.representation], conversion: target.conversion)
        }
        return (order, data)
    }

    /// Sets a source of our own holding `item` as `selection`: readers then get any of its representations,
    /// byte-exact. With `once`, the selection is given up after the first paste. False when the compositor has
    /// no such selection (PRIMARY without version 2) or the connection is gone.
    @discardableResult
    public func own(_ selection: Selection, item: PasteboardItem, once: Bool = false) -> Bool {
        guard isConnected, let manager, let device, selection == .clipboard || hasPrimary else { return false }
        let (order, data) = Self.offeredTypes(for: item)
        guard !order.isEmpty,
            let source = withUnsafePointer(to: &dataControl, { pb_dc_create_data_source(manager, $0) })
        else { return false }
        attach(source, as: .source)
        for type in order { pb_dc_source_offer(source, type) }
        if let previous = owned.removeValue(forKey: selection) { destroySource(previous.proxy) }
        clock += 1
        owned[selection] = OwnedSource(proxy: source, item: item, data: data, order: order, once: once, time: clock)
        pb_dc_device_set_selection(device, source, selection == .primary ? 1 : 0)
        flush()
        return isConnected
    }

    /// Whether this process's source holds `selection`.
    public func owns(_ selection: Selection) -> Bool { owned[selection] != nil }

    /// Gives up a selection we own, leaving it empty.
    public func disown(_ selection: Selection) {
        guard let source = owned.removeValue(forKey: selection) else { return }
        if let device { pb_dc_device_set_selection(device, nil, selection == .primary ? 1 : 0) }
        destroySource(source.proxy)
        flush()
    }

    /// Leaves `selection` empty, whoever holds it (data-control lets any client clear a selection).
    public func clear(_ selection: Selection) {
        if owned[selection] != nil { return disown(selection) }
        guard let device, selection == .clipboard || hasPrimary else { return }
        pb_dc_device_set_selection(device, nil, selection == .primary ? 1 : 0)
        flush()
    }

    func destroySource(_ proxy: OpaquePointer) {
        guard roles.removeValue(forKey: proxy) != nil else { return }
        pb_dc_destroy(proxy, UInt32(PB_DC_SOURCE_DESTROY))
    }

    /// Another client set the selection our source held.
    func sourceCancelled(_ proxy: OpaquePointer) {
        let selection = owned.first { $0.value.proxy == proxy }?.key
        destroySource(proxy)
        guard let selection else { return }
        owned[selection] = nil
        if watched.contains(selection) { observer?.lostOwnership(selection) }
    }

    // MARK: - Answering readers

    /// A reader asked our source for `type`: its bytes go into `fd` as fast as the reader takes them.
    func send(_ type: String, to fd: Int32, from source: OpaquePointer) {
        guard let owner = owned.values.first(where: { $0.proxy == source }), owner.withdrawAt == nil,
            let payload = owner.data[type], pb_set_nonblocking(fd) == 0
        else {
            close(fd)
            return
        }
        // A stored payload file is read now, for this reader, once it is known to be intact (checked against its
        // hash by the first reader); one that is not gets nothing.
        let bytes: Data
        do {
            bytes = try payload.representation.contents()
        } catch {
            close(fd)
            return
        }
        let data = payload.conversion.map { $0.apply(to: bytes) } ?? bytes
        outgoing[fd] = OutgoingTransfer(
            fd: fd, data: data, deadline: Date().addingTimeInterval(limits.stallTimeout * 4), source: source)
        writePipe(fd)
        if outgoing[fd] != nil { descriptors.watch(fd, output: true) }
    }

    /// Writes what the reader's pipe has room for; ends the transfer when all is written or the reader left.
    func writePipe(_ fd: Int32) {
        guard var transfer = outgoing[fd] else { return }
        // At most 4 MiB a turn, so one fast reader does not hold up the loop.
        var budget = 4 << 20
        while transfer.offset < transfer.data.count && budget > 0 {
            let chunk = min(transfer.data.count - transfer.offset, 1 << 20)
            let written = transfer.data.withUnsafeBytes { bytes in
                write(fd, bytes.baseAddress! + transfer.offset, chunk)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    transfer.deadline = Date().addingTimeInterval(limits.stallTimeout * 4)
                    outgoing[fd] = transfer
                    return
                }
                break  // EPIPE: the reader closed its end
            }
            transfer.offset += written
            budget -= written
        }
        if transfer.offset < transfer.data.count && budget <= 0 {
            transfer.deadline = Date().addingTimeInterval(limits.stallTimeout * 4)
            outgoing[fd] = transfer
            return
        }
        let isComplete = transfer.offset >= transfer.data.count
        outgoing[fd] = transfer
        finishTransfer(fd)
        if isComplete, let owner = owned.values.first(where: { $0.proxy == transfer.source }) {
            owner.served += 1
            if owner.once && owner.withdrawAt == nil {
                owner.withdrawAt = Date().addingTimeInterval(Self.withdrawDelay)
            }
        }
    }

    /// How long a pasted paste-once item stays (serving nothing) before the selection is given up.
    static let withdrawDelay: TimeInterval = 0.25

    /// Gives up paste-once selections whose paste is over.
    func withdrawPasted(now: Date) {
        for (selection, owner) in owned {
            guard let due = owner.withdrawAt, due <= now else { continue }
            disown(selection)
            if watched.contains(selection) { observer?.pastedOnce(selection) }
        }
    }

    /// Closes a reader's pipe.
    func finishTransfer(_ fd: Int32) {
        guard outgoing.removeValue(forKey: fd) != nil else { return }
        descriptors.forget(fd)
        close(fd)
    }
}
