import random
import string

from tokens import ALPHABET, reset_token


def test_shape():
    assert ALPHABET == string.ascii_letters + string.digits
    assert len(reset_token()) == 32
    assert len(reset_token(8)) == 8
    assert set(reset_token(200)) <= set(ALPHABET)


def test_not_reproducible_from_the_random_seed():
    random.seed(1234)
    first = reset_token()
    random.seed(1234)
    assert reset_token() != first


def test_tokens_differ():
    assert len({reset_token() for _ in range(50)}) == 50
