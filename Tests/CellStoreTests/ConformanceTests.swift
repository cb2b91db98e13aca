import Foundation
import Testing
@testable import CellStore

/// The public csv-spectrum and W3C CSVW cases, parsed by the store.
@Suite("Conformance", .timeLimit(.minutes(30)))
struct ConformanceTests {
    static let spectrum = Fixtures.conformance.appendingPathComponent("csv-spectrum")
    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: spectrum.appendingPathComponent("csvs").path)) ?? []
        return names.filter { $0.hasSuffix(".csv") }.map { String($0.dropLast(4)) }.sorted()
    }()

    @Test("the suite is there")
    func present() {
        #expect(Self.cases.count == 12)
    }

    @Test("csv-spectrum cases parse as expected", arguments: cases)
    func spectrumCase(name: String) throws {
        let csv = try Data(contentsOf: Self.spectrum.appendingPathComponent("csvs/\(name).csv"))
        let store = CellStore(bytes: Array(csv), name: "\(name).csv")
        let rows = allRows(of: store)
        if name == "location_coordinates" {
            // Faulty upstream (see the suite's README): it must only not crash.
            #expect(rows.count >= 2)
            return
        }
        let json = try Data(contentsOf: Self.spectrum.appendingPathComponent("json/\(name).json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: json) as? [[String: String]])
        let header = try #require(rows.first)
        let records = rows.dropFirst().map { row in
            Dictionary(uniqueKeysWithValues: header.enumerated().map { ($0.element, $0.offset < row.count ? row[$0.offset] : "") })
        }
        #expect(records == expected)
    }

    @Test("W3C CSVW tables parse with surrounding spaces kept", arguments: ["test001", "test002", "test003", "test005", "test006", "test007", "test008", "test009", "test010"])
    func csvwCase(name: String) throws {
        let directory = Fixtures.conformance.appendingPathComponent("w3c-csvw")
        let csv = try Data(contentsOf: directory.appendingPathComponent("\(name).csv"))
        let rows = allRows(of: CellStore(bytes: Array(csv)))
        let json = try Data(contentsOf: directory.appendingPathComponent("\(name).json"))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let tables = try #require(object["tables"] as? [[String: Any]])
        let expectedRows = try #require(tables.first?["row"] as? [[String: Any]])
        let header = try #require(rows.first)
        #expect(rows.count - 1 == expectedRows.count)
        for (index, expectedRow) in expectedRows.enumerated() {
            let describes = try #require((expectedRow["describes"] as? [[String: Any]])?.first)
            let row = rows[index + 1]
            for (column, name) in header.enumerated() {
                let value = column < row.count ? row[column] : ""
                // CSVW leaves empty cells out; others are strings (or lists, for test008).
                if let expected = describes[name] as? String {
                    #expect(value == expected, "\(name) row \(index) column \(name)")
                } else if describes[name] == nil {
                    #expect(value.isEmpty, "\(name): CSVW leaves out only empty cells")
                }
            }
        }
    }

    @Test("a table with rows of 3, 2 and 1 cells keeps each length")
    func raggedCSVW() throws {
        let csv = try Data(contentsOf: Fixtures.conformance.appendingPathComponent("w3c-csvw/test091.csv"))
        let rows = allRows(of: CellStore(bytes: Array(csv)))
        #expect(rows.map(\.count).contains(1))
        #expect(rows.map(\.count).contains(3))
    }
}
