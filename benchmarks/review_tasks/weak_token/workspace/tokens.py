"""Tokens for password-reset links."""

import random
import string

ALPHABET = string.ascii_letters + string.digits


def reset_token(length=32):
    """A random token of `length` characters from ALPHABET."""
    return "".join(random.choice(ALPHABET) for _ in range(length))
