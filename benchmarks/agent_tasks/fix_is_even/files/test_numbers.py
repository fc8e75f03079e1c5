from numbers_util import evens, is_even


def test_is_even():
    assert is_even(4) and not is_even(3)


def test_evens():
    assert evens([1, 2, 3, 4]) == [2, 4]
