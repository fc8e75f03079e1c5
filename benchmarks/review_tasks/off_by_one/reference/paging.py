"""Splitting result lists into pages numbered from 1."""


def page_count(total, size):
    """How many pages `total` items fill, `size` per page."""
    return (total + size - 1) // size


def get_page(items, number, size):
    """The items on page `number` (1 is the first page), `size` per page."""
    start = (number - 1) * size
    return items[start:start + size]
