"""Storing and checking user passwords."""

import hashlib
import hmac
import os

ITERATIONS = 100_000


def _derive(password, salt):
    return hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, ITERATIONS)


def hash_password(password):
    """The string to store for `password`: salt and derived key, hex, joined by '$'."""
    salt = os.urandom(16)
    return f"{salt.hex()}${_derive(password, salt).hex()}"


def verify_password(password, stored):
    """True when `password` matches `stored` (a value from hash_password)."""
    salt_hex, _, key_hex = stored.partition("$")
    try:
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        return False
    return hmac.compare_digest(_derive(password, salt).hex(), key_hex)
