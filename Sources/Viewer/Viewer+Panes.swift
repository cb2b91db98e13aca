import CellStore
import FreezeLayout

extension Viewer {
    /// A prompt on the status line, or a pane over the grid.
    func drawMode(_ frame: inout Frame) {
        switch mode {
        case .grid:
            return
        case .prompt(let kind, let text):
            let y = screenSize.height - 1
            frame.fill(Rect(x: 0, y: y, width: screenSize.width, height: 1), style: .status)
            // The end of a long input stays in view.
            let shown = Self.fitting(text, width: max(1, screenSize.width - 3), keepingEnd: true)
            let end = frame.write(kind.sigil + shown, x: 0, y: y, style: .status)
            if end < screenSize.width { frame[end, y] = FrameCell(" ", .cursor) }
        case .inspector(let inspector):
            drawInspector(inspector, into: &frame)
        case .record(let page):
            drawRecord(page, into: &frame)
        case .help(let scroll):
            frame.fill(Rect(x: 0, y: 0, width: screenSize.width, height: screenSize.height - 1))
            for (line, text) in helpText.dropFirst(scroll).prefix(screenSize.height - 1).enumerated() {
                frame.write(text, x: 0, y: line, style: line == 0 && scroll == 0 ? .header : .plain)
            }
        }
    }

    /// A bordered pane: the title on the top border, the lines inside, the position below.
    private func drawInspector(_ inspector: Inspector, into frame: inout Frame) {
        let area = inspectorArea.intersection(Rect(x: 0, y: 0, width: screenSize.width, height: screenSize.height - 1))
        guard area.width >= 4, area.height >= 3 else { return }
        frame.fill(area)
        let inner = area.width - 2
        frame.write("┌" + String(repeating: "─", count: inner) + "┐", x: area.minX, y: area.minY, style: .border)
        frame.write(" " + inspector.title + " ", x: area.minX + 2, y: area.minY, style: .header, limit: max(0, inner - 2))
        let body = area.height - 2
        for line in 0..<body {
            let y = area.minY + 1 + line
            frame[area.minX, y] = FrameCell("│", .border)
            frame[area.maxX - 1, y] = FrameCell("│", .border)
            let index = inspector.scroll + line
            if index < inspector.lines.count {
                frame.write(inspector.lines[index], x: area.minX + 2, y: y, style: .plain, limit: inner - 2)
            }
        }
        let last = min(inspector.lines.count, inspector.scroll + body)
        let position = " lines \(Self.grouped(inspector.scroll + 1))–\(Self.grouped(last)) of \(Self.grouped(inspector.lines.count))  q closes "
        frame.write("└" + String(repeating: "─", count: inner) + "┘", x: area.minX, y: area.maxY - 1, style: .border)
        frame.write(position, x: area.minX + 2, y: area.maxY - 1, style: .border, limit: max(0, inner - 2))
    }

    /// One record as `name │ value` lines, with its row number in the title.
    private func drawRecord(_ page: RecordPage, into frame: inout Frame) {
        let height = screenSize.height - 1
        frame.fill(Rect(x: 0, y: 0, width: screenSize.width, height: height))
        let title = " record \(Self.grouped(page.row + 1)) of \(Self.grouped(dataRowCount))\(store.isComplete ? "" : "+")"
            + "   ←/→ previous/next   v back "
        frame.fill(Rect(x: 0, y: 0, width: screenSize.width, height: 1), style: .header)
        frame.write(title, x: 0, y: 0, style: .header)
        let lines = recordLines(page.row, width: screenSize.width)
        let nameWidth = lines.map { DisplayWidth.of($0.name) }.max() ?? 8
        for (index, line) in lines.dropFirst(page.scroll).prefix(height - 1).enumerated() {
            let y = index + 1
            let end = frame.write(line.name, x: 1, y: y, style: .header, limit: nameWidth)
            _ = end
            frame.write("│", x: nameWidth + 2, y: y, style: .border)
            frame.write(line.value, x: nameWidth + 4, y: y, style: .plain)
        }
    }
}
