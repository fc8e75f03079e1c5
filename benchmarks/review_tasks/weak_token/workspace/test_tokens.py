from tokens import ALPHABET, reset_token


def test_shape():
    token = reset_token()
    assert len(token) == 32
    assert set(token) <= set(ALPHABET)
