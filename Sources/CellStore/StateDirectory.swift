#if canImport(Glibc)
import Glibc
#endif

/// csvfreeze's private folder for state (`$XDG_STATE_HOME/csvfreeze/`, by default
/// `~/.local/state/csvfreeze/`) and its subfolders: each concern keeps its files in one of
/// its own (`recovery/` for edits left by a quit, sessions elsewhere).
///
/// Folders are made `0700`; one that exists is used only when it is a real folder (not a
/// link) owned by the user, and is made private again if it was not. Files read from
/// there are untrusted input all the same: their readers check them.
package enum StateDirectory {
    /// Why the folder cannot be used.
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The state folder's root: `$XDG_STATE_HOME/csvfreeze` (an absolute value only, as
    /// the XDG specification says), else `$HOME/.local/state/csvfreeze`.
    package static func root(environment: [String: String]? = nil) throws(Failure) -> String {
        let variable = { (name: String) -> String? in
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        if let state = variable("XDG_STATE_HOME"), state.hasPrefix("/") { return state + "/csvfreeze" }
        guard let home = variable("HOME"), home.hasPrefix("/") else {
            throw Failure(description: "no folder for csvfreeze's state: set HOME or XDG_STATE_HOME")
        }
        return home + "/.local/state/csvfreeze"
    }

    /// The subfolder `name` of the state folder, made (with the folders above it) if it
    /// is not there: the root and it private to the user.
    package static func folder(_ name: String, environment: [String: String]? = nil) throws(Failure) -> String {
        let root = try root(environment: environment)
        try makePath(root)
        let folder = root + "/" + name
        try makePrivate(folder)
        return folder
    }

    /// Makes every folder of `path` that is missing (those above csvfreeze's `0700` as
    /// XDG asks for the state home), and `path` itself private.
    private static func makePath(_ path: String) throws(Failure) {
        var built = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, part) in parts.enumerated() {
            built += "/" + part
            if index == parts.count - 1 { break }
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw Failure(description: "cannot make \(built): \(String(cString: strerror(errno)))")
            }
        }
        try makePrivate(path)
    }

    /// Makes `path` a private folder of the user's, or says why it cannot be one.
    private static func makePrivate(_ path: String) throws(Failure) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw Failure(description: "cannot make \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw Failure(description: "cannot use \(path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw Failure(description: "cannot use \(path): it is not a folder") }
        guard info.st_uid == getuid() else { throw Failure(description: "cannot use \(path): it belongs to another user") }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            throw Failure(description: "cannot make \(path) private: \(String(cString: strerror(errno)))")
        }
    }
}
