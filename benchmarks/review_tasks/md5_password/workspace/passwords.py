"""Storing and checking user passwords."""

import hashlib


def hash_password(password):
    """The string to store for `password`."""
    return hashlib.md5(password.encode("utf-8")).hexdigest()


def verify_password(password, stored):
    """True when `password` matches `stored` (a value from hash_password)."""
    return hash_password(password) == stored
