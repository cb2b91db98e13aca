#!/usr/bin/env python3
"""Generate realistic delimited test data for csvfreeze.

    generate.py people OUT.csv [ROWS]       a few thousand people, ~15 columns
    generate.py sensors OUT.tsv [ROWS]      tab-separated measurements
    generate.py wide OUT.csv [ROWS] [COLS]  a wide table (default 60 columns)
    generate.py big OUT.csv SIZE            a large file of about SIZE bytes (e.g. 1G, 200M)

Output is deterministic (seeded), so the same command makes the same bytes. The big
file is written in streaming fashion: memory stays small whatever SIZE is.
"""
import random
import sys

FIRST = ["Ann", "Bo", "Chen", "Dmitri", "Élodie", "Fatima", "Günther", "Hiroshi", "Ingrid",
         "José", "Katarzyna", "Li", "Mbali", "Nguyễn", "Ólafur", "Priya", "Quentin", "Raúl",
         "Søren", "Tomasz", "Ümit", "Valentina", "Wei", "Yusuf", "Zoë",
         "山田", "김민준", "Αλέξανδρος", "Иван", "محمد", "אברהם", "ศิริพร"]
LAST = ["Smith", "Müller", "Dubois", "García", "Rossi", "Nowak", "Andersson", "Yılmaz",
        "太郎", "王", "이", "Παπαδόπουλος", "Петров", "الحسن", "כהן", "O'Brien", "van der Berg"]
CITIES = ["Lyon", "Oslo", "Kraków", "Zürich", "São Paulo", "北京", "東京", "서울", "Αθήνα",
          "Москва", "القاهرة", "תל אביב", "Reykjavík", "Montréal", "Łódź", "Nuuk"]
NOTES = ["paid in cash", "late, but complete", 'said "call me back"', "", "VIP",
         "two lines:\nsecond line here", "refund, partial; see ticket", "ok", "🎉 first order",
         "ships to: 12 Rue de la Paix, Paris"]


def quote(value, delimiter=","):
    if any(c in value for c in (delimiter, '"', "\n", "\r")):
        return '"' + value.replace('"', '""') + '"'
    return value


def people(out, rows):
    rng = random.Random(1)
    header = ["id", "first_name", "last_name", "email", "city", "country", "age", "balance",
              "joined", "last_seen", "orders", "rating", "active", "tags", "note"]
    out.write(",".join(header) + "\n")
    for i in range(1, rows + 1):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        email = f"user{i}@example.org"
        row = [str(i), first, last, email, rng.choice(CITIES), rng.choice(["FR", "NO", "PL", "CH", "BR", "CN", "JP", "KR", "GR", "RU", "EG", "IL", "IS", "CA", "GL"]),
               str(rng.randint(18, 90)), f"{rng.uniform(-500, 25000):.2f}",
               f"20{rng.randint(10, 24):02d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
               f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
               str(rng.randint(0, 400)), f"{rng.uniform(1, 5):.1f}", rng.choice(["true", "false"]),
               ", ".join(rng.sample(["new", "returning", "wholesale", "b2b", "promo", "eu"], rng.randint(0, 3))),
               rng.choice(NOTES)]
        out.write(",".join(quote(v) for v in row) + "\n")


def sensors(out, rows):
    rng = random.Random(2)
    out.write("timestamp\tstation\ttemperature_c\thumidity_pct\tpressure_hpa\twind_kmh\tstatus\n")
    for i in range(rows):
        out.write("\t".join([f"2025-03-{1 + i // 1440:02d}T{(i // 60) % 24:02d}:{i % 60:02d}:00",
                             rng.choice(["Tromsø", "Zermatt", "Ushuaia", "Alert", "Vostok"]),
                             f"{rng.gauss(2, 9):.2f}", str(rng.randint(20, 100)), f"{rng.gauss(1010, 12):.1f}",
                             f"{abs(rng.gauss(15, 10)):.1f}", rng.choice(["ok", "ok", "ok", "check", "offline"])]) + "\n")


def wide(out, rows, cols):
    rng = random.Random(3)
    out.write(",".join(["key"] + [f"metric_{c:02d}" for c in range(1, cols)]) + "\n")
    for i in range(1, rows + 1):
        out.write(",".join([f"K{i:05d}"] + [str(rng.randint(-99999, 999999)) for _ in range(1, cols)]) + "\n")


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.upper().rstrip("B").rstrip("I")
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def big(out, size):
    """About `size` bytes, 20 columns: quoted text with commas, doubled quotes, newlines, UTF-8."""
    rng = random.Random(4)
    header = ["id"] + [f"col{c:02d}" for c in range(1, 20)]
    out.write(",".join(header) + "\n")
    written = 0
    i = 0
    words = ["alpha", "beta", "gamma", "delta", "Zürich", "北京", "naïve", "œuvre", "data", "point"]
    batch = []
    while written < size:
        i += 1
        cells = [str(i)]
        for c in range(1, 20):
            kind = c % 5
            if kind == 0:
                cells.append(f"{rng.uniform(-1e6, 1e6):.3f}")
            elif kind == 1:
                cells.append(quote(" ".join(rng.choice(words) for _ in range(rng.randint(1, 6))) + ", etc."))
            elif kind == 2:
                cells.append(quote(f'she said "{rng.choice(words)}"') if rng.random() < 0.3 else rng.choice(words))
            elif kind == 3:
                cells.append(quote(f"line one\nline two {i}") if rng.random() < 0.05 else str(rng.randint(0, 10**9)))
            else:
                cells.append(f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
        line = ",".join(cells) + "\n"
        batch.append(line)
        written += len(line.encode())
        if len(batch) >= 2000:
            out.write("".join(batch))
            batch = []
    out.write("".join(batch))


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    kind, path = argv[1], argv[2]
    with open(path, "w", encoding="utf-8", newline="") as out:
        if kind == "people":
            people(out, int(argv[3]) if len(argv) > 3 else 3000)
        elif kind == "sensors":
            sensors(out, int(argv[3]) if len(argv) > 3 else 5000)
        elif kind == "wide":
            wide(out, int(argv[3]) if len(argv) > 3 else 500, int(argv[4]) if len(argv) > 4 else 60)
        elif kind == "big":
            big(out, parse_size(argv[3]) if len(argv) > 3 else 1 << 30)
        else:
            sys.stderr.write(f"unknown kind: {kind}\n")
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
