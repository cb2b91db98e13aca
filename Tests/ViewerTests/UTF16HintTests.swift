import CellStore
import Foundation
import FreezeLayout
import Testing
@testable import Viewer

@Suite("UTF-16 without a byte-order mark", .timeLimit(.minutes(30)))
struct UTF16HintTests {
    @Test("NUL in every other byte: the status line names the encoding to give", arguments: ["UTF-16LE", "UTF-16BE"])
    func hint(encoding: String) throws {
        _ = utf8Locale
        let text = "name,city\nAnn,Lyon\nBo,Oslo\n"
        let bytes = try #require(text.data(using: encoding == "UTF-16LE" ? .utf16LittleEndian : .utf16BigEndian))
        let subject = Viewer(store: CellStore(bytes: Array(bytes), name: "u.csv"), options: .plain,
                             screenSize: Size(width: 80, height: 6))
        let status = subject.frame().lines.last ?? ""
        #expect(status.contains("looks like UTF-16: --encoding \(encoding)"), "\(status)")
        #expect(!status.contains("binary data?"), "\(status)")
    }

    @Test("other NUL bytes still say binary data")
    func binary() {
        let status = viewer("a,b\n1,x\u{0}y\n", width: 70, height: 4).frame().lines.last ?? ""
        #expect(status.contains("binary data? (NUL bytes, shown as ␀)"))
    }
}
