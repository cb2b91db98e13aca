/// What the decoding thread needs to read one sheet of a workbook: it opens the workbook
/// again there (libzip and expat state stay on the thread that uses them).
package struct SheetRequest: Sendable {
    let path: String
    let file: FileSource
    let sheet: Workbook.Sheet
    /// How much text the shared strings may take, in memory and in their temporary files.
    let stringsLimit: Int64
    let stringsMemoryLimit: Int

    /// The shared strings' bound under a spool limit: the limit given, else 4 GiB.
    static func stringsLimit(_ limit: SpoolLimit) -> Int64 {
        if case .bytes(let bytes, _) = limit { return bytes }
        return 4 << 30
    }

    /// Opens the sheet's reader (the workbook, its styles and shared strings read).
    func makeReader() throws(ZipEntryError) -> SheetReader {
        let workbook: Workbook
        do {
            workbook = try Workbook(file: file, path: path)
        } catch {
            throw ZipEntryError(error.description)
        }
        return try SheetReader(workbook: workbook, sheet: sheet, stringsMemoryLimit: stringsMemoryLimit,
                               stringsLimit: stringsLimit)
    }
}

extension PackedInput {
    /// A workbook's sheet, turned into CSV in the background and spooled.
    convenience init(sheet: SheetRequest, compressedSize: Int64, spoolLimit: SpoolLimit) {
        self.init(unpacker: Unpacker(sheet: sheet), format: .xlsx, file: sheet.file, compressedSize: compressedSize,
                  spoolLimit: spoolLimit)
    }
}

extension CellStore {
    /// Opens the sheet `spec.table` (the first when nil) of the workbook `spec` names, and
    /// starts turning it into CSV and indexing it in the background.
    static func openSheet(_ spec: InputSpec, checkpointSpacing: Int64, cacheCapacity: Int, startsLoader: Bool,
                          onChange: @escaping @Sendable () -> Void) throws(CellStoreError) -> CellStore {
        guard let path = try spec.readablePath() else {
            throw .unsupported("stdin", "a workbook is read from a file, not from a pipe")
        }
        let file = try FileSource(path: path)
        let workbook = try Workbook(file: file, path: path)
        let sheet = try workbook.sheet(named: spec.table)
        let sizes = workbook.archive.locate(sheet.part).map { workbook.archive.sizes(of: $0) }
        let request = SheetRequest(path: path, file: file, sheet: sheet,
                                   stringsLimit: SheetRequest.stringsLimit(spec.spoolLimit),
                                   stringsMemoryLimit: SharedStrings.defaultMemoryLimit)
        let packed = PackedInput(sheet: request, compressedSize: sizes?.compressed ?? 0, spoolLimit: spec.spoolLimit)
        let loader = Loader(input: .packed(packed), spacing: checkpointSpacing, fileName: path,
                            forcedDelimiter: spec.delimiter, forcedQuote: spec.quote, preambleRule: .none,
                            onChange: onChange)
        let store = CellStore(name: path, loader: loader, cacheCapacity: cacheCapacity, inputIdentity: FileIdentity(file),
                              sheetName: sheet.name)
        if startsLoader { loader.start() }
        return store
    }
}


extension TextReader {
    /// A workbook's sheet as CSV text, read in order on the calling thread (output modes).
    static func sheet(_ spec: InputSpec) throws(CellStoreError) -> TextReader {
        guard let path = try spec.readablePath() else {
            throw .unsupported("stdin", "a workbook is read from a file, not from a pipe")
        }
        let file = try FileSource(path: path)
        let workbook = try Workbook(file: file, path: path)
        let sheet = try workbook.sheet(named: spec.table)
        let request = SheetRequest(path: path, file: file, sheet: sheet,
                                   stringsLimit: SheetRequest.stringsLimit(spec.spoolLimit),
                                   stringsMemoryLimit: SharedStrings.defaultMemoryLimit)
        var reader: SheetReader?
        var failure: String?
        return TextReader(transcoder: nil) { buffer throws(PackedDamage) in
            if let failure { throw PackedDamage(.workbook(failure), at: 0) }
            do throws(ZipEntryError) {
                if reader == nil { reader = try request.makeReader() }
                return try reader?.read(into: buffer) ?? 0
            } catch {
                failure = error.message
                throw PackedDamage(.workbook(error.message), at: 0)
            }
        }
    }
}
