import CellStore
import Export
import Foundation
import Viewer

/// Exports `store`'s plan into memory, through the pipeline `--output` and Ctrl-S use.
func exported(_ plan: ExportPlan, format: OutputFormat, headerRows: Int = 1,
              sampleRows: Int = OutputWriter.tableSampleRows) throws -> (bytes: [UInt8], outcome: Exporter.Outcome) {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString)").path
    defer { unlink(path) }
    let sink = try ExportSink(replacing: path)
    let outcome = Exporter.run(plan, to: sink) { start, hand in
        OutputWriter(format: format, lineEnding: start.dialect.lineEnding, headerRows: headerRows,
                     byteOrderMark: start.hasByteOrderMark, preamble: start.preamble, sampleRows: sampleRows, sink: hand)
    }
    _ = sink.commit()
    let data = FileManager.default.contents(atPath: path) ?? Data()
    return ([UInt8](data), outcome)
}
