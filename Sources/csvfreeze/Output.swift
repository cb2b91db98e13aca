#if canImport(Glibc)
import Glibc
#endif
import CellStore
import Viewer

/// The non-interactive path: stream the input into a text format on stdout.
enum Output {
    /// Writes the whole input; returns the exit status.
    static func write(path: String?, delimiter: UInt8?, quote: UInt8?, preamble: PreambleRule, format: OutputFormat, headerRows: Int) -> Int32 {
        // A reader that goes away (`| head`) ends the output quietly, not with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        var writer: OutputWriter?
        do {
            let summary = try RecordStream.forEach(path: path, delimiter: delimiter, quote: quote, preamble: preamble, started: { start in
                writer = OutputWriter(format: format, lineEnding: start.dialect.lineEnding, headerRows: headerRows,
                                      byteOrderMark: start.hasByteOrderMark, preamble: start.preamble, sink: writeToStandardOutput)
            }) { row in
                writer?.write(row) ?? false
            }
            writer?.finish(endsWithTerminator: summary.endsWithTerminator)
            if let damage = summary.damage {
                // Everything before the damage is written; say where it stopped.
                fail("\(path ?? "stdin"): \(damage)", status: 1)
            }
            return 0
        } catch {
            fail(error.description, status: 1)
        }
    }

    static func writeToStandardOutput(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, bytes.count - done) }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += count
        }
        return true
    }
}
