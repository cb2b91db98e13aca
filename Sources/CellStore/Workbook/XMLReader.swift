#if canImport(Glibc)
import Glibc
#endif
import CExpat

/// What a reader of one workbook part does with its elements and text. Names are local
/// (a prefix such as `x:` is dropped): writers differ in the prefixes they use.
protocol XMLHandler: AnyObject {
    func start(_ name: XMLName, _ attributes: XMLAttributes, _ reader: XMLReader)
    func end(_ name: XMLName, _ reader: XMLReader)
    func text(_ bytes: UnsafeRawBufferPointer, _ reader: XMLReader)
}

/// An element's name as expat gives it, compared by its local part.
struct XMLName {
    let local: UnsafeRawBufferPointer

    init(_ name: UnsafePointer<CChar>) {
        let length = strlen(name)
        var start = 0
        for index in 0..<length where name[index] == 0x3A { start = index + 1 }
        local = UnsafeRawBufferPointer(start: UnsafeRawPointer(name + start), count: length - start)
    }

    static func == (name: XMLName, other: StaticString) -> Bool {
        guard name.local.count == other.utf8CodeUnitCount, let base = name.local.baseAddress else { return false }
        return memcmp(base, other.utf8Start, name.local.count) == 0
    }
}

/// An element's attributes as expat gives them: name, value, name, value, …, nil.
struct XMLAttributes {
    let pairs: UnsafeMutablePointer<UnsafePointer<CChar>?>?

    /// The value of the attribute whose local name is `name` (`r:id` matches `id`).
    func value(_ name: StaticString) -> UnsafePointer<CChar>? {
        guard let pairs else { return nil }
        var index = 0
        while let attribute = pairs[index] {
            if XMLName(attribute) == name { return pairs[index + 1] }
            index += 2
        }
        return nil
    }

    /// The same, as a string.
    func string(_ name: StaticString) -> String? { value(name).map { String(cString: $0) } }
}

/// A streaming XML parser (expat) over one part of a workbook. A part may not declare a
/// DTD (none of the Office formats has one): that refuses entity expansion (billion
/// laughs) outright. A handler may stop the parse with a reason (`fail`) or pause it, to
/// resume later (`pause`), so that output is handed over in bounded pieces.
final class XMLReader {
    private let parser: XML_Parser
    private let handler: XMLHandler
    /// Why the handler stopped the parse, if it did.
    private(set) var failure: String?
    let part: String

    enum Status: Equatable {
        case done
        case paused
        case failed(String)
    }

    init(part: String, handler: XMLHandler) throws(ZipEntryError) {
        guard let parser = XML_ParserCreate(nil) else { throw ZipEntryError("out of memory reading \(part)") }
        self.parser = parser
        self.handler = handler
        self.part = part
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetElementHandler(parser, { data, name, attributes in
            guard let data, let name else { return }
            let reader = Unmanaged<XMLReader>.fromOpaque(data).takeUnretainedValue()
            reader.handler.start(XMLName(name), XMLAttributes(pairs: attributes), reader)
        }, { data, name in
            guard let data, let name else { return }
            let reader = Unmanaged<XMLReader>.fromOpaque(data).takeUnretainedValue()
            reader.handler.end(XMLName(name), reader)
        })
        XML_SetCharacterDataHandler(parser) { data, text, length in
            guard let data, let text, length > 0 else { return }
            let reader = Unmanaged<XMLReader>.fromOpaque(data).takeUnretainedValue()
            reader.handler.text(UnsafeRawBufferPointer(start: text, count: Int(length)), reader)
        }
        XML_SetStartDoctypeDeclHandler(parser) { data, _, _, _, _ in
            guard let data else { return }
            Unmanaged<XMLReader>.fromOpaque(data).takeUnretainedValue().fail("declares a DTD, which no workbook part has")
        }
    }

    deinit { XML_ParserFree(parser) }

    /// Stops the parse; `parse` or `resume` then says `.failed(reason)`.
    func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = reason
        XML_StopParser(parser, XML_FALSE)
    }

    /// Pauses the parse after the current element; `resume` goes on from there.
    func pause() { XML_StopParser(parser, XML_TRUE) }

    /// The line of the part the parser is at.
    var line: Int { Int(XML_GetCurrentLineNumber(parser)) }

    /// Parses `bytes` (kept unchanged until the parse is done, as a pause may come).
    func parse(_ bytes: UnsafeRawBufferPointer, isFinal: Bool) -> Status {
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        return status(XML_Parse(parser, base, Int32(bytes.count), isFinal ? 1 : 0))
    }

    /// Goes on after a pause.
    func resume() -> Status { status(XML_ResumeParser(parser)) }

    private func status(_ status: XML_Status) -> Status {
        switch status {
        case XML_STATUS_OK: return .done
        case XML_STATUS_SUSPENDED: return .paused
        default:
            if let failure { return .failed("\(part) \(failure)") }
            let why = XML_ErrorString(XML_GetErrorCode(parser)).map { String(cString: $0) } ?? "not well-formed"
            return .failed("\(part) is not well-formed XML at line \(line) (\(why))")
        }
    }

    /// Reads the whole of a small part (the workbook, its relations, the styles) from
    /// `entry` through `handler`; over `limit` bytes it is not a part a workbook has.
    static func readWhole(_ entry: ZipEntry, handler: XMLHandler, limit: Int64) throws(ZipEntryError) {
        let reader = try XMLReader(part: entry.part, handler: handler)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try entry.read(into: buffer)
            if entry.bytesRead > limit {
                throw ZipEntryError("\(entry.part) is larger than \(SpoolLimit.describe(limit)): not read")
            }
            var status = reader.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count]), isFinal: count == 0)
            while status == .paused { status = reader.resume() }
            if case .failed(let why) = status { throw ZipEntryError(why) }
            if count == 0 { return }
        }
    }
}
