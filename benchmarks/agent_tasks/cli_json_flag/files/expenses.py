"""Expenses read from a CSV file with the columns category,amount."""

import csv
from collections import defaultdict


def read_totals(path: str) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            totals[row["category"].strip()] += float(row["amount"])
    return dict(totals)
