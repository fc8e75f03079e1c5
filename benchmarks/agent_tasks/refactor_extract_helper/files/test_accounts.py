import pytest
from accounts import change_email, create_account


def test_create_cleans_email():
    accounts = {}
    assert create_account(accounts, "ann", "  Ann@Example.COM ")["email"] == "ann@example.com"


def test_change_email_checks_it():
    accounts = {}
    create_account(accounts, "bob", "bob@example.com")
    with pytest.raises(ValueError):
        change_email(accounts, "bob", "bob.example.com")
    assert change_email(accounts, "bob", "B@x.org")["email"] == "b@x.org"
