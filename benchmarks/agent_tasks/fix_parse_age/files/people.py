def parse_age(text):
    """The age in text as an int, or None when text is not a whole number >= 0."""
    return int(text)
