import Synchronization

/// The files open as tables' inputs in this process, by device and inode: Ctrl-S never
/// writes over one of them, whichever table it writes (a sheet, a diff, an answer, or
/// another of several files), since every view of that file would then show other bytes
/// than it indexed.
package enum OpenInputs {
    private struct Key: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// How many stores read each file now.
    private static let open = Mutex<[Key: Int]>([:])

    static func add(_ identity: FileIdentity) {
        open.withLock { $0[Key(device: identity.device, inode: identity.inode), default: 0] += 1 }
    }

    static func remove(_ identity: FileIdentity) {
        open.withLock { open in
            let key = Key(device: identity.device, inode: identity.inode)
            guard let count = open[key] else { return }
            open[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Counts the files at `paths` as open while it lives: the inputs of a session of
    /// several tables, each opened only while it is shown or counted.
    package final class Claim: Sendable {
        private let identities: [FileIdentity]

        package init(paths: [String]) {
            identities = paths.compactMap { FileIdentity(path: $0) }
            for identity in identities { OpenInputs.add(identity) }
        }

        deinit {
            for identity in identities { OpenInputs.remove(identity) }
        }
    }

    /// True when `path` names a file that some table reads (following symbolic links, as
    /// a write to it would).
    package static func contains(path: String) -> Bool {
        guard let there = FileIdentity(path: path) else { return false }
        return open.withLock { $0[Key(device: there.device, inode: there.inode)] != nil }
    }
}
