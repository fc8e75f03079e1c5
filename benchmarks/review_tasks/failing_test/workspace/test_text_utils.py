from text_utils import slugify, word_count


def test_simple_title():
    assert slugify("Hello World") == "hello-world"


def test_punctuation_and_spaces():
    assert slugify("Hello,  World!") == "hello-world"
    assert slugify("  Python 3.12 is out  ") == "python-3-12-is-out"


def test_word_count():
    assert word_count("one two  three") == 3
