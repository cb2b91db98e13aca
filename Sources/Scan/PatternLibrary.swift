import CPCRE2

/// The regular-expression library searches run on.
package enum PatternLibrary {
    /// Its name and version, for `--version`: "PCRE2 10.42".
    package static var libraryVersions: [String] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBufferPointer { cf_re_version($0.baseAddress!) }
        guard length > 1 else { return ["PCRE2"] }
        let text = String(decoding: buffer.prefix(Int(length) - 1), as: UTF8.self)
        return ["PCRE2 " + (text.split(separator: " ").first.map(String.init) ?? text)]
    }
}
