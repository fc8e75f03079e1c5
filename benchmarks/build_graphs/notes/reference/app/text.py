import re


def slugify(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def word_count(text: str) -> int:
    return len(text.split())
