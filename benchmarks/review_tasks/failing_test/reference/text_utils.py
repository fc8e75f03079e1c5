"""Small text helpers for the blog engine."""

import re


def slugify(title):
    """URL slug of `title`: lower-case ASCII letters and digits, words joined by single
    dashes, no dash at either end."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def word_count(text):
    return len(text.split())
