#!/usr/bin/env python3
"""Writes the JSON fixtures under Tests/Fixtures/json and, beside each, the table Python's
json module makes of it (NAME.expected.json: the rows, header first, each a list of the
cells as text), the reference csvfreeze's JSON reading is tested against.

The rules the expected tables follow (DECISIONS.md, man page FORMATS):
- columns are keys in the order first met; the header row names them all;
- a string is its decoded text; a number its text as written (parse_int/parse_float see
  it); true/false as written; null an empty cell; an object or array its compact JSON;
- an object's cells run to its last key's column (rows are ragged, as CSV's are);
- a record that is not a JSON object is its text, trimmed, in the first column;
- a key repeated in one object: the last value, in the column of the first;
- blank lines are no records.

Run from the repository's root: python3 scripts/make-json-fixtures.py
Only the standard library is used; the outputs are committed, so tests never need Python.
"""
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "json")


class Number(str):
    """A number's text as written."""


def load(text):
    return json.loads(text, object_pairs_hook=Pairs, parse_int=Number, parse_float=Number)


class Pairs(list):
    """An object's members in order, repeats kept (the table keeps the last)."""


def compact(value):
    """Compact JSON text of a nested value, numbers as written."""
    if isinstance(value, Pairs):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + compact(v) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(compact(v) for v in value) + "]"
    if isinstance(value, Number):
        return str(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return json.dumps(value, ensure_ascii=False)


def cell(value):
    if isinstance(value, Number):
        return str(value)
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return compact(value)


def table(records):
    """records: (value or None, raw text) in order; value None when not JSON."""
    columns = {}
    rows = []
    for value, raw in records:
        if not isinstance(value, Pairs):
            rows.append([raw.strip(" \t\r\n")])
            continue
        cells = {}
        for key, member in value:
            if key not in columns:
                columns[key] = len(columns)
            cells[columns[key]] = cell(member)
        width = max(cells) + 1 if cells else 1
        rows.append([cells.get(i, "") for i in range(width)])
    header = list(columns)
    return [header] + rows


def marks(records, header):
    """What the table knows beside its cells (NAME.marks.json): per data record, the
    columns (of the header's) that are null, a JSON null or a key the record lacks (a
    record shown whole: every column but the first); the records shown whole (not an
    object); and each key one object named more than once: [record, column, times]."""
    columns = {key: index for index, key in enumerate(header)}
    nulls, whole, repeats = [], [], []
    for number, (value, _) in enumerate(records):
        if not isinstance(value, Pairs):
            whole.append(number)
            nulls.append(list(range(1, len(header))))
            continue
        last, times = {}, {}
        for key, member in value:
            last[key] = member
            times[key] = times.get(key, 0) + 1
        nulls.append([i for i, key in enumerate(header) if key not in last or last[key] is None])
        seen = []
        for key, _ in value:
            if times[key] > 1 and key not in seen:
                seen.append(key)
        repeats += sorted([number, columns[key], times[key]] for key in seen)
    return {"nulls": nulls, "whole": whole, "repeats": repeats}


def lines_records(data):
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    records = []
    for line in text.split("\n"):
        if not line.strip(" \t\r\n"):
            continue
        try:
            records.append((load(line), line))
        except ValueError:
            records.append((None, line))
    return records


def array_records(data):
    # Elements' text as written is only needed for scalars here; they are written
    # canonically in the fixtures, so compact() gives it back.
    elements = load(data.decode("utf-8"))
    return [(e, compact(e) if not isinstance(e, Pairs) else "") for e in elements]


BASIC = "\n".join([
    '{"id":1,"name":"Ann","city":"Lyon","amount":12.50,"paid":true,"note":null}',
    '{"id":2,"name":"Bo, Jr.","city":"Oslo","amount":-7,"paid":false,"note":""}',
    '{"name":"Quote \\"q\\" here","id":3,"tags":["a","b"],"meta":{"k":1,"l":[true,null]}}',
    '{"id":12345678901234567890123456789012345678901,"amount":1e400,"small":-0.0e-7}',
    '{"id":5,"name":"line\\nbreak and\\r\\nCRLF","city":"tab\\there"}',
    '{"id":6,"name":"\\u00e9t\\u00e9 \\ud83d\\ude00 caf\\u00e9","city":"na\\u0000l"}',
    '{"id":7,"id":8,"name":"last wins"}',
    '',
    '   ',
    '{}',
    '[1,2,3]',
    '"just a string"',
    '42',
    'not json at all',
    '{"id":9,"weird key, \\"quoted\\"":"v","":"empty key"}',
    '{"id":10}   ',
    '{"id":11,"name":"trailing"} extra',
    '{"id":12,"name":"unterminated',
    '{"id":13,"nested":{"deep":{"deeper":[1,[2,[3]]]}},"emptyobj":{},"emptyarr":[]}',
])

ARRAY = """[
  {"id": 1, "name": "Ann", "list": [1, 2, 3]},
  {"name": "with ] and [ and } and { and , inside", "id": 2},
  {"id": 3, "escaped": "a \\\\\\" b \\\\", "obj": {"x": [ {"y": "}"} ]}},
  5,
  "text",
  null,
  [1,2],
  {"id": 4, "late": true}
]
"""

# A key met only after the first window (1,000 records): a column found late.
LATE = "".join('{"n":%d,"s":"r%d"}\n' % (i, i) for i in range(1003)) + '{"n":1003,"late":"L"}\n{"n":1004,"later":[1]}\n'

# Every record has every key, and each column one kind of value (a number column may hold
# null): `--output jsonl` gives these objects back byte for byte.
ROUNDTRIP = "".join(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" for record in [
    {"id": 1, "name": "Ann", "price": 12.5, "ok": True, "tags": ["a", "b"], "meta": {"k": 1}},
    {"id": 2, "name": "Bo, \"Jr.\"", "price": None, "ok": False, "tags": [], "meta": {"k": [1, {"z": None}]}},
    {"id": 3, "name": "line\nbreak été", "price": -0.25, "ok": True, "tags": ["c"], "meta": None},
    {"id": 12345678901234567890, "name": "", "price": 1e+300, "ok": None, "tags": None, "meta": {}},
])

# null, "" and a key left out told apart; keys repeated, lines that are no object.
NULLS = "\n".join([
    '{"k":null,"s":""}',
    '{"k":"","s":null}',
    '{"s":"x"}',
    '{"k":"a","k":null}',
    '{"k":null,"k":""}',
    '{"k":"","s":"","t":""}',
    '{"k":"","k":"","k":"z","s":null,"s":1}',
    '[1,2]',
    '42',
    '"x"',
    '{"k":null}',
    '{"t":null,"k":"","t":"2"}',
]) + "\n"

FIXTURES = {
    "nulls.jsonl": NULLS.encode("utf-8"),
    "roundtrip.jsonl": ROUNDTRIP.encode("utf-8"),
    "basic.jsonl": (BASIC + "\n").encode("utf-8"),
    "bom-crlf.jsonl": ("\ufeff" + '{"a":1,"b":"x"}\r\n{"b":"y","c":null}\r\n').encode("utf-8"),
    "array.json": ARRAY.encode("utf-8"),
    "late.jsonl": LATE.encode("utf-8"),
    "no-final-newline.ndjson": b'{"a":"1"}\n{"a":"2","b":"3"}',
}


def main():
    os.makedirs(ROOT, exist_ok=True)
    for name, data in FIXTURES.items():
        with open(os.path.join(ROOT, name), "wb") as f:
            f.write(data)
        records = array_records(data) if name.endswith(".json") else lines_records(data)
        expected = table(records)
        with open(os.path.join(ROOT, name + ".expected.json"), "w", encoding="utf-8") as f:
            json.dump(expected, f, ensure_ascii=False, indent=0)
            f.write("\n")
        with open(os.path.join(ROOT, name + ".marks.json"), "w", encoding="utf-8") as f:
            json.dump(marks(records, expected[0]), f, ensure_ascii=False)
            f.write("\n")
        print(name, len(expected) - 1, "records", len(expected[0]), "columns")


if __name__ == "__main__":
    main()
