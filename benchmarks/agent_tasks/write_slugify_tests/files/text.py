"""Text helpers for building URLs."""

import re
import unicodedata


def slugify(text: str) -> str:
    """A URL slug of text.

    Accents are dropped, letters are lower-cased, every run of characters that are not
    letters or digits becomes one '-', and there is no '-' at either end:
    slugify('Hello, World!') == 'hello-world'
    slugify('  Crème brûlée  ') == 'creme-brulee'
    slugify('--') == ''
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower())
    return slug.strip("-")
