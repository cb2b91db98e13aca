#!/usr/bin/env python3
"""Makes the small Excel workbooks the tests read (Tests/Fixtures/xlsx/*.xlsx) and, for
each sheet, the CSV that openpyxl reads from it (Tests/Fixtures/xlsx/BOOK.SHEET.csv):
the expected values, from a reader independent of csvfreeze's.

Run with the peers' Python, which has openpyxl (`make test` does not need it: the
workbooks and CSVs are committed):

    /work/main/.venv-peers/bin/python scripts/make-xlsx-fixtures.py

openpyxl writes no cached values for formulas, nor inline strings, rich text or
phonetic runs: `raw.xlsx` is written by hand (zipfile) for those, and read back with
openpyxl (data_only=True, the cached values) like the others.

How openpyxl's values become text (csvfreeze's rules, see DECISIONS.md "Workbooks"):
None -> empty; bool -> TRUE/FALSE; int -> str; float -> repr (what openpyxl wrote);
datetime -> YYYY-MM-DD at midnight under a format with no time in it, else
YYYY-MM-DDTHH:MM:SS (.mmm when there are milliseconds); time -> HH:MM:SS;
timedelta -> H:MM:SS in hours. Where csvfreeze shows what Excel shows and openpyxl does
not, the expected text is set by hand below, with the reason (OVERRIDES).
"""
import csv
import datetime
import os
import zipfile

import openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "xlsx")

# (book, sheet, row, column from 1) -> expected text, where Excel and openpyxl differ.
OVERRIDES = {
    # Serial 60 is the 29 February 1900 that Excel counts (openpyxl says 1900-02-28).
    ("raw", "Raw", 9, 2): "1900-02-29",
    # _x000D_ is Excel's escape for a carriage return (openpyxl keeps it as written).
    ("raw", "Raw", 10, 2): "line one\r\nline two",
    # A formula with no cached value shows the formula (openpyxl data_only: None).
    ("raw", "Raw", 8, 2): "=SUM(B2:B3)",
    # Serial 0 in the 1904 system is 1904-01-01 (openpyxl takes any serial below 1 for a time).
    ("dates1904", "Mac", 3, 2): "1904-01-01",
}


def ms(microseconds):
    return "" if microseconds == 0 else ".%03d" % round(microseconds / 1000)


def text(value, number_format):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, datetime.datetime):
        has_time = any(c in number_format.lower() for c in "hs")
        if not has_time and value.time() == datetime.time(0):
            return value.strftime("%Y-%m-%d")
        return value.strftime("%Y-%m-%dT%H:%M:%S") + ms(value.microsecond)
    if isinstance(value, datetime.time):
        return value.strftime("%H:%M:%S") + ms(value.microsecond)
    if isinstance(value, datetime.timedelta):
        seconds = int(value.total_seconds())
        return "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60) + ms(value.microseconds)
    return str(value)


def expect(book):
    """Writes BOOK.SHEET.csv for each sheet of Tests/Fixtures/xlsx/BOOK.xlsx, as openpyxl reads it."""
    workbook = openpyxl.load_workbook(os.path.join(HERE, book + ".xlsx"), data_only=True)
    for sheet in workbook.worksheets:
        with open(os.path.join(HERE, "%s.%s.csv" % (book, sheet.title)), "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, lineterminator="\n")
            if sheet.max_row == 1 and sheet.max_column == 1 and sheet.cell(1, 1).value is None:
                continue
            for row in sheet.iter_rows(min_row=1, max_row=sheet.max_row, max_col=sheet.max_column):
                writer.writerow([OVERRIDES.get((book, sheet.title, cell.row, cell.column), text(cell.value, cell.number_format))
                                 if not isinstance(cell, openpyxl.cell.cell.MergedCell) else "" for cell in row])


def values_book():
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Values"
    sheet.append(["name", "value", "note"])
    rows = [
        ("shared string", "plain text", "same text twice"),
        ("again", "plain text", None),
        ("int", 42, None),
        ("negative", -7, None),
        ("float", 3.25, None),
        ("sum", 0.1 + 0.2, "0.1+0.2 as stored"),
        ("large", 12345678901234567890, "beyond 2^63"),
        ("tiny", 1e-300, None),
        ("huge", 1e20, None),
        ("true", True, None),
        ("false", False, None),
        ("error", "#N/A", None),
        ("div", "#DIV/0!", None),
        ("unicode", "Zürich — 東京 🎉", None),
        ("break", "line one\nline two", "a cell with a line break"),
        ("comma", 'a, "quoted" b', None),
        ("spaces", "  padded  ", None),
    ]
    for row in rows:
        sheet.append(list(row))
    # Dates, times, date-times under several formats (built-in ids and custom codes).
    start = sheet.max_row + 1
    cases = [
        ("date", datetime.datetime(2024, 2, 29), "yyyy-mm-dd"),
        ("builtin 14", datetime.datetime(1999, 12, 31), "mm-dd-yy"),
        ("builtin 15", datetime.datetime(2001, 1, 2), "d-mmm-yy"),
        ("time", datetime.time(13, 45, 30), "h:mm:ss"),
        ("builtin 20", datetime.time(7, 5), "h:mm"),
        ("datetime", datetime.datetime(2023, 6, 15, 8, 30, 15), "yyyy-mm-dd h:mm:ss"),
        ("builtin 22", datetime.datetime(2020, 1, 1, 23, 59), "m/d/yy h:mm"),
        ("millis", datetime.datetime(2023, 6, 15, 8, 30, 15, 250000), "yyyy-mm-dd hh:mm:ss.000"),
        ("date with time", datetime.datetime(2022, 3, 4, 12, 0), "dd/mm/yyyy"),
        ("early", datetime.datetime(1900, 1, 15), "yyyy-mm-dd"),
        ("quoted letters", 12.5, '"days" 0.0'),
        ("colour", -3, '[Red]0;[Blue]-0'),
    ]
    for offset, (name, value, number_format) in enumerate(cases):
        sheet.cell(start + offset, 1, name)
        cell = sheet.cell(start + offset, 2, value)
        cell.number_format = number_format
    # An empty row, then a row whose cells skip a column; a merged range over B:C.
    row = sheet.max_row + 2
    sheet.cell(row, 1, "after a gap")
    sheet.cell(row, 3, "third column")
    sheet.cell(row + 1, 1, "merged")
    sheet.cell(row + 1, 2, "first cell of B:C")
    sheet.merge_cells(start_row=row + 1, start_column=2, end_row=row + 1, end_column=3)
    # A column past an empty one widens every row (E, with D empty throughout).
    sheet.cell(row + 2, 1, "wide")
    sheet.cell(row + 2, 5, "fifth")

    second = workbook.create_sheet("Second sheet")
    second.append(["id", "city"])
    second.append([1, "Oslo"])
    second.append([2, "Lima"])
    header_only = workbook.create_sheet("Header only")
    header_only.append(["a", "b", "c"])
    workbook.save(os.path.join(HERE, "values.xlsx"))


def dates_1904_book():
    workbook = openpyxl.Workbook()
    workbook.epoch = CALENDAR_MAC_1904
    sheet = workbook.active
    sheet.title = "Mac"
    sheet.append(["name", "when"])
    for name, value, number_format in [
        ("date", datetime.datetime(2024, 2, 29), "yyyy-mm-dd"),
        ("first day", datetime.datetime(1904, 1, 1), "yyyy-mm-dd"),
        ("datetime", datetime.datetime(1999, 12, 31, 23, 59, 59), "yyyy-mm-dd hh:mm:ss"),
        ("time", datetime.time(6, 0), "hh:mm"),
    ]:
        sheet.append([name, value])
        sheet.cell(sheet.max_row, 2).number_format = number_format
    workbook.save(os.path.join(HERE, "dates1904.xlsx"))


RAW_SHEET = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<dimension ref="A1:C10"/>
<sheetData>
<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>
<row r="2"><c r="A2" t="inlineStr"><is><t>inline</t></is></c><c r="B2"><v>1.5</v></c></row>
<row r="3"><c r="A3" t="inlineStr"><is><r><t>rich </t></r><r><rPr><b/></rPr><t>inline</t></r></is></c><c r="B3"><v>2</v></c></row>
<row r="4"><c r="A4" t="s"><v>2</v></c><c r="B4"><f>B2+B3</f><v>3.5</v></c></row>
<row r="5"><c r="A5" t="s"><v>3</v></c><c r="B5" t="str"><f>A2&amp;"!"</f><v>inline!</v></c></row>
<row r="6"><c r="A6" t="inlineStr"><is><t>formula error</t></is></c><c r="B6" t="e"><f>1/0</f><v>#DIV/0!</v></c></row>
<row r="7"><c t="inlineStr"><is><t>no references</t></is></c><c t="b"><v>1</v></c><c t="n"><v>7</v></c></row>
<row r="8"><c r="A8" t="inlineStr"><is><t>no cached value</t></is></c><c r="B8"><f>SUM(B2:B3)</f></c></row>
<row r="9"><c r="A9" t="inlineStr"><is><t>serial 60</t></is></c><c r="B9" s="1"><v>60</v></c></row>
<row r="10"><c r="A10" t="inlineStr"><is><t>escaped</t></is></c><c r="B10" t="s"><v>4</v></c><c r="C10" s="2"><v>1.5</v></c></row>
</sheetData>
</worksheet>
"""

RAW_STRINGS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="5" uniqueCount="5">
<si><t>label</t></si>
<si><t>value</t></si>
<si><r><t>rich</t></r><r><rPr><i/></rPr><t xml:space="preserve"> runs</t></r><rPh sb="0" eb="1"><t>PHONETIC</t></rPh></si>
<si><t>formula string</t></si>
<si><t>line one_x000D_
line two</t></si>
</sst>
"""

RAW_STYLES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="1"><numFmt numFmtId="164" formatCode="[h]:mm:ss"/></numFmts>
<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs>
<cellXfs count="3"><xf numFmtId="0" xfId="0"/><xf numFmtId="14" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" xfId="0" applyNumberFormat="1"/></cellXfs>
</styleSheet>
"""

RAW_WORKBOOK = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<workbookPr/>
<sheets><sheet name="Raw" sheetId="1" r:id="rId1"/></sheets>
</workbook>
"""

RAW_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>
"""

ROOT_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>
"""

CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>
<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>
</Types>
"""


def shared_book():
    """values.xlsx with its strings shared, as Excel writes them (openpyxl writes them inline)."""
    import re
    strings, index = [], {}
    inline = re.compile(r'<c r="([A-Z]+[0-9]+)"( s="[0-9]+")? t="inlineStr"><is><t>(.*?)</t></is></c>', re.S)

    def share(match):
        text = match.group(3)
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return '<c r="%s"%s t="s"><v>%d</v></c>' % (match.group(1), match.group(2) or "", index[text])

    with zipfile.ZipFile(os.path.join(HERE, "values.xlsx")) as source, \
            zipfile.ZipFile(os.path.join(HERE, "shared.xlsx"), "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename).decode("utf-8")
            if item.filename.startswith("xl/worksheets/"):
                data = inline.sub(share, data)
            elif item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace("</Relationships>", '<Relationship Id="rIdStrings" Type="http://schemas.openxmlformats.org/'
                                    'officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
            elif item.filename == "[Content_Types].xml":
                data = data.replace("</Types>", '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                                    'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
            target.writestr(item.filename, data)
        target.writestr("xl/sharedStrings.xml", '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.'
                        'openxmlformats.org/spreadsheetml/2006/main">' + "".join(
                            '<si><t xml:space="preserve">%s</t></si>' % s for s in strings) + "</sst>")


def raw_book():
    with zipfile.ZipFile(os.path.join(HERE, "raw.xlsx"), "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", CONTENT_TYPES)
        book.writestr("_rels/.rels", ROOT_RELS)
        book.writestr("xl/workbook.xml", RAW_WORKBOOK)
        book.writestr("xl/_rels/workbook.xml.rels", RAW_RELS)
        book.writestr("xl/worksheets/sheet1.xml", RAW_SHEET)
        book.writestr("xl/sharedStrings.xml", RAW_STRINGS)
        book.writestr("xl/styles.xml", RAW_STYLES)


if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    values_book()
    dates_1904_book()
    shared_book()
    raw_book()
    for name in ["values", "shared", "dates1904", "raw"]:
        expect(name)
