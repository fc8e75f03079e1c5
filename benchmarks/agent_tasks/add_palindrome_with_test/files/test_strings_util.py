from strings_util import reverse


def test_reverse():
    assert reverse('abc') == 'cba'
