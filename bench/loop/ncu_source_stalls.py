#!/usr/bin/env python3
"""The instructions with the most warp stall samples in each kernel of an ncu source page
(`ncu -i REPORT --page source --csv --print-source sass`), and the kernel's stall reasons:

    python3 bench/loop/ncu_source_stalls.py source_sass.csv.gz [TOP]
"""
import csv
import gzip
import io
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def tables(lines):
    """(kernel name, header, rows) per kernel table of the page."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith('"Kernel Name"'):
            name = next(csv.reader([lines[i]]))[1]
            j = i + 2
            while j < len(lines) and not lines[j].startswith('"Kernel Name"'):
                j += 1
            rows = list(csv.reader(io.StringIO("\n".join(lines[i + 1:j]))))
            out.append((name, rows[0], rows[1:]))
            i = j
        else:
            i += 1
    return out


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as f:
        lines = f.read().splitlines()
    seen = set()
    for name, header, rows in tables(lines):
        if name in seen:  # ncu prints each kernel's page twice (per source view); one is enough
            continue
        seen.add(name)
        samples = header.index("Warp Stall Sampling (All Samples)")
        stalls = [i for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]
        total = sum(number(r[samples]) for r in rows) or 1.0
        reasons = sorted(((sum(number(r[i]) for r in rows), header[i]) for i in stalls), reverse=True)
        print(f"{name}: {int(total)} samples; " +
              ", ".join(f"{h} {100 * v / total:.1f}%" for v, h in reasons[:6]))
        for r in sorted(rows, key=lambda r: -number(r[samples]))[:top]:
            why = max(((number(r[i]), header[i]) for i in stalls), default=(0, ""))[1]
            print(f"  {100 * number(r[samples]) / total:5.1f}%  {r[1].strip()[:70]:70s} {why}")


if __name__ == "__main__":
    main()
