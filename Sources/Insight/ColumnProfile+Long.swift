extension ColumnProfile {
    /// Adds a value longer than a cell kept: counted by its key, measured by its whole
    /// length, ordered by all of its bytes (read again from the input when two starts
    /// agree), and text whatever it holds.
    mutating func add(_ value: LongValue, record: Int) {
        counter.add(value, record: record)
        filled += 1
        if value.characters < shortest { shortest = value.characters }
        if value.characters > longest { longest = value.characters }
        if lowBytes == nil || LongValue.order(value.prefix, value, lowBytes!, lowLong) < 0 {
            lowBytes = value.prefix
            lowLong = value
        }
        if highBytes == nil || LongValue.order(value.prefix, value, highBytes!, highLong) > 0 {
            highBytes = value.prefix
            highLong = value
        }
        kinds |= ValueKind.text.bit
    }
}

extension SummarySink {
    mutating func longCell(_ value: LongValue, column: Int, record: Int) {
        profiles[column].add(value, record: record)
    }
}
