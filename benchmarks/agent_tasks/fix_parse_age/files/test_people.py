from people import parse_age


def test_valid():
    assert parse_age('42') == 42


def test_invalid():
    assert parse_age('abc') is None
    assert parse_age('-3') is None
