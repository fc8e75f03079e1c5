"""User accounts kept in a dict: name -> {"email": ..., "active": ...}."""


def normalize_email(email: str) -> str:
    """The address stripped and lower-cased; ValueError when it is not user@domain.tld."""
    email = email.strip().lower()
    if email.count("@") != 1:
        raise ValueError(f"invalid email address: {email!r}")
    user, domain = email.split("@")
    if not user or "." not in domain:
        raise ValueError(f"invalid email address: {email!r}")
    return email


def create_account(accounts: dict, name: str, email: str) -> dict:
    email = normalize_email(email)
    if name in accounts:
        raise KeyError(f"account {name!r} exists")
    accounts[name] = {"email": email, "active": True}
    return accounts[name]


def change_email(accounts: dict, name: str, new_email: str) -> dict:
    new_email = normalize_email(new_email)
    account = accounts[name]
    account["email"] = new_email
    return account


def deactivate(accounts: dict, name: str) -> None:
    accounts[name]["active"] = False
