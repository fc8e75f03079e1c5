"""Small text helpers for the blog engine."""


def slugify(title):
    """URL slug of `title`: lower-case ASCII letters and digits, words joined by single
    dashes, no dash at either end."""
    return title.strip().lower().replace(" ", "-")


def word_count(text):
    return len(text.split())
