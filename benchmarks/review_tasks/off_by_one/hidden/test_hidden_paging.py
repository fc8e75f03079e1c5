from paging import get_page, page_count

ITEMS = list(range(10))


def test_first_and_middle_pages():
    assert get_page(ITEMS, 1, 3) == [0, 1, 2]
    assert get_page(ITEMS, 2, 3) == [3, 4, 5]


def test_last_partial_page_and_beyond():
    assert get_page(ITEMS, 4, 3) == [9]
    assert get_page(ITEMS, 5, 3) == []


def test_every_item_on_exactly_one_page():
    pages = [get_page(ITEMS, n, 4) for n in range(1, page_count(len(ITEMS), 4) + 1)]
    assert [x for page in pages for x in page] == ITEMS
