"""Print the words of a text file, the most common first: python cli.py notes.txt"""

import argparse
from collections import Counter


def top_words(text: str) -> list[tuple[str, int]]:
    words = (w.strip(".,;:!?\"'()").lower() for w in text.split())
    counts = Counter(w for w in words if w)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Count the words of a text file.")
    parser.add_argument("path", help="the text file")
    args = parser.parse_args(argv)
    with open(args.path, encoding="utf-8") as fh:
        text = fh.read()
    for word, count in top_words(text):
        print(f"{word}: {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
