"""Sum expenses per category: python cli.py expenses.csv [--min 10]"""

import argparse

from expenses import read_totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Total the expenses of each category.")
    parser.add_argument("path", help="CSV file with the columns category,amount")
    parser.add_argument("--min", type=float, default=0.0,
                        help="hide the categories whose total is below this")
    args = parser.parse_args(argv)
    totals = read_totals(args.path)
    shown = {name: total for name, total in sorted(totals.items()) if total >= args.min}
    for name, total in shown.items():
        print(f"{name:<12}{total:>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
