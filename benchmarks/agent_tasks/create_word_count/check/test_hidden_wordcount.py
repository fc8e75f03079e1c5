from wordcount import count_words


def test_count():
    assert count_words('a b A c b a') == {'a': 3, 'b': 2, 'c': 1}
    assert count_words('') == {}
