from text_utils import slugify, word_count


def test_visible_cases():
    assert slugify("Hello World") == "hello-world"
    assert slugify("Hello,  World!") == "hello-world"
    assert slugify("  Python 3.12 is out  ") == "python-3-12-is-out"


def test_more_titles():
    assert slugify("--Already-Slugged--") == "already-slugged"
    assert slugify("What's new in v2?") == "what-s-new-in-v2"
    assert slugify("") == ""
    assert slugify("!!!") == ""


def test_word_count_unchanged():
    assert word_count("one two  three") == 3
