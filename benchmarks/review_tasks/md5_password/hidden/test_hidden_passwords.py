import hashlib

from passwords import hash_password, verify_password


def test_round_trip():
    stored = hash_password("correct horse")
    assert isinstance(stored, str)
    assert verify_password("correct horse", stored)
    assert not verify_password("wrong horse", stored)
    assert verify_password("", hash_password(""))
    assert verify_password("pässwörd", hash_password("pässwörd"))


def test_salted():
    first, second = hash_password("same"), hash_password("same")
    assert first != second
    assert verify_password("same", first) and verify_password("same", second)


def test_not_md5_or_sha():
    stored = hash_password("secret")
    for name in ("md5", "sha1", "sha256"):
        assert hashlib.new(name, b"secret").hexdigest() not in stored
