// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "csvfreeze",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "csvfreeze", targets: ["csvfreeze"]),
        .executable(name: "csvfreeze-bench", targets: ["csvfreeze-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibCSV",
            providers: [.apt(["libcsv-dev"])]
        ),
        .systemLibrary(
            name: "CPCRE2",
            providers: [.apt(["libpcre2-dev"])]
        ),
        .systemLibrary(
            name: "CNCurses",
            providers: [.apt(["libncurses-dev"])]
        ),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CLzma", providers: [.apt(["liblzma-dev"])]),
        .systemLibrary(name: "CBzip2", providers: [.apt(["libbz2-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // Excel workbooks: the zip around them and the XML inside (pkg-config libzip, expat).
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CExpat", pkgConfig: "expat", providers: [.apt(["libexpat1-dev"])]),
        // The field kernel's byte searches: SSE2 inline, the record-boundary scan with
        // AVX2 chosen at run time (no build flags: target attributes per function).
        .target(name: "CFieldScan"),
        // What Glibc's Swift module leaves out (_GNU_SOURCE): thread names, the affinity mask.
        .target(name: "CThread"),
        // JSON lines and arrays as CSV records: simdjson (libsimdjson-dev) under a C API.
        .target(name: "CJSON", cxxSettings: [.define("SIMDJSON_THREADS_ENABLED", to: "1")],
                linkerSettings: [.linkedLibrary("simdjson")]),
        .target(name: "CellStore", dependencies: ["CLibCSV", "CFieldScan", "CThread", "CZlib", "CZstd", "CLzma", "CBzip2", "CJSON", "CZip", "CExpat"]),
        .target(name: "Table", dependencies: ["CellStore"]),
        .target(name: "Scan", dependencies: ["CellStore", "CFieldScan", "CPCRE2", "Table"]),
        .target(name: "Query", dependencies: ["CellStore", "Scan", "Table"]),
        .target(name: "Insight", dependencies: ["CellStore", "CFieldScan", "Scan", "Table", "Query"]),
        .target(name: "CExport", dependencies: ["CFieldScan"]),
        .target(name: "Export", dependencies: ["CellStore", "CExport", "CFieldScan", "Display", "Scan", "Table"]),
        .target(name: "SQL", dependencies: ["CellStore", "CFieldScan", "CSQLite", "Scan", "Query", "Table"]),
        .target(name: "Diff", dependencies: ["CellStore", "CFieldScan", "Scan", "Query", "Table"]),
        .target(name: "FreezeLayout"),
        // The screen as values (Frame, Style, Key, MouseEvent, CellText): all the terminal backend
        // needs, and what the aligned-table output shares with the screen.
        .target(name: "Display", dependencies: ["CellStore", "FreezeLayout"]),
        .target(name: "Viewer", dependencies: ["Display", "CellStore", "Scan", "Table", "Query", "Insight", "Export", "FreezeLayout"]),
        // Generators, references, fuzz helpers and the one bounded wait (`turn`) for the tests
        // and the benchmark; no product target depends on it. `SeededGenerator` stays in
        // CellStore: a query's key sample (SQL) draws from it.
        .target(name: "TestSupport", dependencies: ["CellStore", "Scan", "CSQLite"]),
        .target(name: "App", dependencies: ["CellStore", "FreezeLayout", "SQL", "Table", "Viewer"]),
        .target(name: "Terminal", dependencies: ["Display", "FreezeLayout", "CNCurses"]),
        .executableTarget(
            name: "csvfreeze",
            dependencies: [
                "CellStore", "FreezeLayout", "Scan", "Table", "Viewer", "App", "Terminal", "Query", "Insight", "SQL", "Export", "Diff",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "csvfreeze-bench", dependencies: ["CellStore", "CLibCSV", "Scan", "FreezeLayout", "Viewer", "Query", "Insight", "Table", "SQL", "Export", "TestSupport"]),
        .testTarget(name: "CellStoreTests", dependencies: ["CellStore", "TestSupport"]),
        .testTarget(name: "ScanTests", dependencies: ["Scan", "CellStore", "Table", "TestSupport"]),
        .testTarget(name: "FieldKernelTests", dependencies: ["CellStore", "CFieldScan", "Query", "Insight", "Scan", "SQL", "Diff", "TestSupport"]),
        .testTarget(name: "InsightTests", dependencies: ["Insight", "CellStore", "Scan", "Table", "Query", "TestSupport"]),
        .testTarget(name: "TableTests", dependencies: ["Table", "CellStore"]),
        .testTarget(name: "QueryTests", dependencies: ["Query", "Scan", "Table", "CellStore", "TestSupport"]),
        .testTarget(name: "ExportTests", dependencies: ["Export", "Viewer", "Query", "Scan", "Table", "CellStore", "TestSupport"]),
        .testTarget(name: "SQLTests", dependencies: ["SQL", "CellStore", "Scan", "TestSupport"]),
        .testTarget(name: "DiffTests", dependencies: ["Diff", "CellStore", "Table", "Viewer", "FreezeLayout", "TestSupport"]),
        .testTarget(name: "FreezeLayoutTests", dependencies: ["FreezeLayout"]),
        .testTarget(name: "ViewerTests", dependencies: ["Viewer", "Export", "CellStore", "Table", "Query", "Insight", "TestSupport"]),
        .testTarget(name: "AppTests", dependencies: ["App", "Viewer", "CellStore", "FreezeLayout", "Table", "SQL", "TestSupport"]),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "Viewer", "CNCurses", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
