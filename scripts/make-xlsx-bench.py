#!/usr/bin/env python3
"""Makes the workbook csvfreeze-bench opens (never committed; cached in the bench data
directory): about SIZE megabytes of .xlsx, one sheet of 20 columns (numbers, dates and
text, much of it repeated as real sheets are), its strings shared as Excel writes them.

    /work/main/.venv-peers/bin/python scripts/make-xlsx-bench.py OUT.xlsx [SIZE_MB]

openpyxl writes the sheet (write-only mode, in bounded memory); its strings, which it
writes inline, are then moved into xl/sharedStrings.xml, as Excel keeps them.
"""
import datetime
import os
import random
import re
import sys
import zipfile

import openpyxl

out = sys.argv[1]
size_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 50
part = out + ".part.xlsx"
random.seed(7)
cities = ["Oslo", "Lima", "Zürich", "Kyoto", "Accra", "Quito", "Perth", "Tromsø", "Lagos", "Hanoi"]
words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo"]
start = datetime.datetime(2020, 1, 1)


def rows(count):
    for index in range(1, count + 1):
        yield [index, random.random() * 1000, random.randint(-10**6, 10**6),
               start + datetime.timedelta(minutes=random.randint(0, 2_000_000)),
               random.choice(cities), random.choice(words) + " " + random.choice(words),
               "customer %d" % random.randint(1, 200_000), "order-%08d" % random.randint(0, 10**8),
               random.choice([True, False]), round(random.gauss(50, 15), 2),
               "note %s, %s" % (random.choice(words), random.randint(1, 1000)),
               random.randint(0, 100), random.choice(cities) + "/" + random.choice(cities),
               random.random(), "sku-%05d" % random.randint(0, 50_000), random.randint(1, 12),
               random.choice(words).upper(), random.random() * 1e6, "x" * random.randint(0, 12), index * 3]


def write(count):
    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Data")
    sheet.append(["id", "value", "delta", "when", "city", "words", "customer", "order", "flag", "score",
                  "note", "pct", "route", "ratio", "sku", "month", "code", "amount", "pad", "triple"])
    for row in rows(count):
        sheet.append(row)
    workbook.save(part)


def share(source, target):
    """Moves the inline strings of every sheet into a shared string table."""
    strings, index = [], {}
    inline = re.compile(rb'<c r="([A-Z]+[0-9]+)"( s="[0-9]+")? t="inlineStr"><is><t>(.*?)</t></is></c>', re.S)

    def sub(match):
        text = match.group(3)
        number = index.get(text)
        if number is None:
            number = index[text] = len(strings)
            strings.append(text)
        return b'<c r="%s"%s t="s"><v>%d</v></c>' % (match.group(1), match.group(2) or b"", number)

    with zipfile.ZipFile(source) as book, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as result:
        for item in book.infolist():
            data = book.read(item.filename)
            if item.filename.startswith("xl/worksheets/"):
                data = inline.sub(sub, data)
            elif item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rIdStrings" Type="http://schemas.openxmlformats.org/'
                                    b'officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>')
            elif item.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                                    b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
            result.writestr(item.filename, data)
        result.writestr("xl/sharedStrings.xml", b'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.'
                        b'openxmlformats.org/spreadsheetml/2006/main">' + b"".join(
                            b"<si><t>%s</t></si>" % text for text in strings) + b"</sst>")


# Calibrate on a small sheet, then write as many rows as make SIZE_MB (at most Excel's last).
write(20_000)
share(part, out)
per_row = os.path.getsize(out) / 20_000
count = min(1_048_575, int(size_mb * 1_000_000 / per_row))
write(count)
share(part, out)
os.remove(part)
print("%s: %d rows, %.1f MB" % (out, count, os.path.getsize(out) / 1e6))
