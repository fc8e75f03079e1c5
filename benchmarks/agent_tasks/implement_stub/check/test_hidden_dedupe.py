from listutils import chunks, dedupe


def test_dedupe():
    assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]
    assert dedupe([]) == []
    assert chunks([1, 2, 3], 2) == [[1, 2], [3]]
