#!/usr/bin/env python3
"""Print every table of a PDF as CSV, one block per table, headed `# page N, table M`.

Usage: extract_tables.py FILE.pdf [--pages 3-4] [--text-strategy]

Part of the pdf-extract demo skill. Skill Prism lists this file as a resource; it never runs it.
"""

from __future__ import annotations

import argparse
import csv
import sys


def page_numbers(spec: str | None, count: int) -> list[int]:
    """1-based page numbers from '3', '2-5' or '1,4,7' (all pages when spec is empty)."""
    if not spec:
        return list(range(1, count + 1))
    pages: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        pages.extend(range(int(first), int(last or first) + 1))
    return [p for p in pages if 1 <= p <= count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf")
    parser.add_argument("--pages", help="pages to read, e.g. 3-4 or 1,5")
    parser.add_argument(
        "--text-strategy",
        action="store_true",
        help="find columns from text alignment (tables without ruling lines)",
    )
    args = parser.parse_args()

    import pdfplumber  # imported late so --help works without it

    strategy = "text" if args.text_strategy else "lines"
    settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy}
    out = csv.writer(sys.stdout)
    with pdfplumber.open(args.pdf) as pdf:
        for number in page_numbers(args.pages, len(pdf.pages)):
            page = pdf.pages[number - 1]
            for index, table in enumerate(page.extract_tables(settings), start=1):
                print(f"# page {number}, table {index}")
                out.writerows([cell or "" for cell in row] for row in table)
                print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
