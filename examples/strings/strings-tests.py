"""Tests for strings-tasks.json.

The solve job writes one candidate to `solution.py` beside this file and runs only the tests
of the task at hand (`test_<task_id>_*`), so each test imports its function when it runs.
"""

import importlib


def _f(name):
    return getattr(importlib.import_module("solution"), name)


# count_vowels ------------------------------------------------------------------------------

def test_count_vowels_mixed_case():
    count_vowels = _f("count_vowels")
    assert count_vowels("Hello World") == 3
    assert count_vowels("AEIOUaeiou") == 10


def test_count_vowels_y_is_not_a_vowel():
    count_vowels = _f("count_vowels")
    assert count_vowels("rhythm") == 0
    assert count_vowels("Yes") == 1


def test_count_vowels_empty_string():
    assert _f("count_vowels")("") == 0


def test_count_vowels_ignores_digits_and_punctuation():
    count_vowels = _f("count_vowels")
    assert count_vowels("a1e2!? i-o_u") == 5
    assert count_vowels("12345 !?") == 0


def test_count_vowels_long_text():
    assert _f("count_vowels")("banana" * 1000) == 3000


# is_palindrome -----------------------------------------------------------------------------

def test_is_palindrome_ignores_case_and_punctuation():
    is_palindrome = _f("is_palindrome")
    assert is_palindrome("A man, a plan, a canal: Panama") is True
    assert is_palindrome("No 'x' in Nixon") is True


def test_is_palindrome_false_cases():
    is_palindrome = _f("is_palindrome")
    assert is_palindrome("race a car") is False
    assert is_palindrome("ab") is False


def test_is_palindrome_empty_and_symbols_only():
    is_palindrome = _f("is_palindrome")
    assert is_palindrome("") is True
    assert is_palindrome(".,!? ") is True


def test_is_palindrome_digits_count():
    is_palindrome = _f("is_palindrome")
    assert is_palindrome("12321") is True
    assert is_palindrome("1231") is False
    assert is_palindrome("0P") is False


def test_is_palindrome_single_character():
    assert _f("is_palindrome")("x") is True


# reverse_words -----------------------------------------------------------------------------

def test_reverse_words_basic():
    assert _f("reverse_words")("the sky is blue") == "blue is sky the"


def test_reverse_words_collapses_whitespace():
    reverse_words = _f("reverse_words")
    assert reverse_words("  hello   world  ") == "world hello"
    assert reverse_words("a\tb\nc") == "c b a"


def test_reverse_words_empty_and_blank():
    reverse_words = _f("reverse_words")
    assert reverse_words("") == ""
    assert reverse_words("   ") == ""


def test_reverse_words_keeps_punctuation_attached():
    assert _f("reverse_words")("Hello, world!") == "world! Hello,"


def test_reverse_words_single_word():
    assert _f("reverse_words")("one") == "one"


# run_length_encode -------------------------------------------------------------------------

def test_run_length_encode_basic():
    assert _f("run_length_encode")("aaabcc") == "a3bc2"


def test_run_length_encode_single_characters_have_no_count():
    assert _f("run_length_encode")("abc") == "abc"


def test_run_length_encode_is_case_sensitive():
    run_length_encode = _f("run_length_encode")
    assert run_length_encode("aaAA") == "a2A2"
    assert run_length_encode("aAa") == "aAa"


def test_run_length_encode_empty():
    assert _f("run_length_encode")("") == ""


def test_run_length_encode_multi_digit_runs():
    run_length_encode = _f("run_length_encode")
    assert run_length_encode("z" * 12) == "z12"
    assert run_length_encode("a" + "b" * 10 + "a") == "ab10a"


def test_run_length_encode_separate_runs_of_same_character():
    assert _f("run_length_encode")("aabaa") == "a2ba2"


# caesar_shift ------------------------------------------------------------------------------

def test_caesar_shift_basic():
    assert _f("caesar_shift")("abc", 1) == "bcd"


def test_caesar_shift_wraps_and_keeps_case():
    caesar_shift = _f("caesar_shift")
    assert caesar_shift("xyz", 3) == "abc"
    assert caesar_shift("XYZ", 3) == "ABC"


def test_caesar_shift_negative():
    caesar_shift = _f("caesar_shift")
    assert caesar_shift("a", -1) == "z"
    assert caesar_shift("Bcd", -27) == "Abc"


def test_caesar_shift_larger_than_alphabet():
    caesar_shift = _f("caesar_shift")
    assert caesar_shift("abc", 26) == "abc"
    assert caesar_shift("abc", 54) == "cde"


def test_caesar_shift_leaves_other_characters():
    caesar_shift = _f("caesar_shift")
    assert caesar_shift("Hello, World! 123", 3) == "Khoor, Zruog! 123"
    assert caesar_shift("café", 1) == "dbgé"


# longest_common_prefix ---------------------------------------------------------------------

def test_longest_common_prefix_basic():
    assert _f("longest_common_prefix")(["flower", "flow", "flight"]) == "fl"


def test_longest_common_prefix_none_shared():
    assert _f("longest_common_prefix")(["dog", "racecar", "car"]) == ""


def test_longest_common_prefix_empty_list():
    assert _f("longest_common_prefix")([]) == ""


def test_longest_common_prefix_single_word():
    assert _f("longest_common_prefix")(["alone"]) == "alone"


def test_longest_common_prefix_is_case_sensitive():
    assert _f("longest_common_prefix")(["Apple", "apple"]) == ""


def test_longest_common_prefix_whole_word_or_empty_member():
    longest_common_prefix = _f("longest_common_prefix")
    assert longest_common_prefix(["internet", "inter", "interval"]) == "inter"
    assert longest_common_prefix(["abc", ""]) == ""
