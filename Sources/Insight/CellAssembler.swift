import CellStore

/// Puts the cells of streamed records back together for a pass: a record whose cells are
/// too long to keep comes in pieces (`Row.continuesInNext`), and a cell longer than
/// `LongValue.threshold` is handed on as a `LongValue` (its start, length and a hash of all
/// of it), so that long values that share their start are still told apart.
struct CellAssembler {
    let columns: Range<Int>
    let filter: RecordFilter
    let reader: RecordReader
    /// The first record handed in starts at `origin`; it is record `firstRecord`.
    let origin: Int64
    let firstRecord: Int
    /// The record the next row belongs to.
    private(set) var record: Int
    private var pieces = RecordPieces()
    /// The wanted cell still arriving, if any.
    private var pending: Pending?

    struct Pending {
        var column: Int
        var bytes: [UInt8] = []
        var hash = StreamingHash()
        var characters = 0

        mutating func append(_ field: ArraySlice<UInt8>) {
            field.withUnsafeBytes { piece in
                hash.add(piece)
                characters += CellReader.characterCount(piece)
            }
            if bytes.count < LongValue.threshold { bytes.append(contentsOf: field.prefix(LongValue.threshold - bytes.count)) }
        }
    }

    init(columns: Range<Int>, filter: RecordFilter, reader: RecordReader, origin: Int64, firstRecord: Int) {
        self.columns = columns
        self.filter = filter
        self.reader = reader
        self.origin = origin
        self.firstRecord = firstRecord
        record = firstRecord
    }

    /// Takes the next row of the stream (a record, or a piece of one) and hands `sink`
    /// each wanted cell it completes, and an empty cell for each the record lacks.
    mutating func take<Sink: CellSink>(_ row: Row, into sink: inout Sink) {
        let first = pieces.place(row)
        let accepted = filter.accepts(record)
        if !row.continuesPrevious && !row.continuesInNext {
            // A whole record: its cells straight from its bytes.
            if accepted {
                for column in columns {
                    let field = row.field(column)
                    if field.count > LongValue.threshold {
                        var whole = Pending(column: column)
                        whole.append(field)
                        deliver(whole, into: &sink)
                    } else {
                        field.withUnsafeBytes { sink.cell($0, column: column, record: record) }
                    }
                }
            }
            record += 1
            return
        }
        if accepted {
            for index in 0..<row.count {
                let column = first + index
                guard columns.contains(column) else { continue }
                let continuing = index == 0 && row.continuesPrevious
                if !continuing || pending?.column != column { pending = Pending(column: column) }
                pending?.append(row.field(index))
                if index == row.count - 1 && row.continuesInNext { continue }
                if let done = pending { deliver(done, into: &sink) }
                pending = nil
            }
        }
        guard !row.continuesInNext else { return }
        if accepted {
            for column in columns where column >= first + row.count {
                sink.cell(UnsafeRawBufferPointer(start: nil, count: 0), column: column, record: record)
            }
        }
        pending = nil
        record += 1
    }

    private func deliver<Sink: CellSink>(_ cell: Pending, into sink: inout Sink) {
        let length = cell.hash.length
        guard length > LongValue.threshold else {
            cell.bytes.withUnsafeBytes { sink.cell($0, column: cell.column, record: record) }
            return
        }
        var prefix = cell.bytes
        prefix.removeSubrange(RecordParser.characterBoundary(prefix[...])...)
        let place = RecordOrigin(offset: origin, recordsBefore: record - firstRecord)
        let input = InputCell(source: reader.source, dialect: reader.dialect, origin: place, column: cell.column, length: length)
        sink.longCell(LongValue(prefix: prefix, length: length, characters: cell.characters, hash: cell.hash.value, cell: input),
                      column: cell.column, record: record)
    }
}
