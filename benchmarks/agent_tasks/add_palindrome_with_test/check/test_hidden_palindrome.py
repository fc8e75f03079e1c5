from strings_util import is_palindrome, reverse


def test_palindrome():
    assert is_palindrome('Never odd or even')
    assert is_palindrome('abba')
    assert not is_palindrome('abc')
    assert reverse('ab') == 'ba'


def test_a_test_was_added():
    assert 'is_palindrome' in open('test_strings_util.py').read()
