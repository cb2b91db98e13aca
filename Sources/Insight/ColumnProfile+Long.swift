extension ColumnProfile {
    /// Adds a value longer than a cell kept: counted by its key, measured by its whole
    /// length, ordered by its start as a sort orders it, and text whatever it holds.
    mutating func add(_ value: LongValue, record: Int) {
        counter.add(value, record: record)
        filled += 1
        if value.characters < shortest { shortest = value.characters }
        if value.characters > longest { longest = value.characters }
        // A sort keys a cell by its start: so does the summary's min and max.
        value.prefix.withUnsafeBytes { place($0, record: record, long: value) }
        kinds |= ValueKind.text.bit
    }
}

extension SummarySink {
    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        let slot = slots[column - first]
        if slot >= 0 { profiles[slot].add(value, record: record) }
    }
}
