from text import slugify


def test_lower_cases_and_joins_words():
    assert slugify("Hello World") == "hello-world"


def test_runs_of_other_characters_become_one_dash():
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("a  --  b") == "a-b"


def test_no_dash_at_the_ends():
    assert slugify("  --Python 3--  ") == "python-3"
    assert slugify("--") == ""


def test_accents_are_dropped():
    assert slugify("  Crème brûlée  ") == "creme-brulee"
