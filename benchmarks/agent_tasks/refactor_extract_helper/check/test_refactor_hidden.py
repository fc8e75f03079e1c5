import ast
from pathlib import Path

import accounts as mod
import pytest
from accounts import change_email, create_account, deactivate, normalize_email

TREE = ast.parse((Path(__file__).resolve().parent / "accounts.py").read_text())


def _function(name):
    [node] = [n for n in TREE.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return node


def _calls(node):
    return {c.func.id for c in ast.walk(node)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}


@pytest.mark.parametrize("raw, clean", [(" A@B.io ", "a@b.io"), ("x.y@mail.example.org",
                                                                  "x.y@mail.example.org")])
def test_normalize_email(raw, clean):
    assert normalize_email(raw) == clean


@pytest.mark.parametrize("bad", ["no-at.example.com", "a@@b.com", "@b.com", "a@localhost",
                                 "a@b@c.com", "   "])
def test_normalize_email_refuses(bad):
    with pytest.raises(ValueError, match="invalid email address"):
        normalize_email(bad)


def test_both_functions_use_the_helper_and_lost_the_copies():
    for name in ("create_account", "change_email"):
        node = _function(name)
        assert "normalize_email" in _calls(node), name
        attrs = {a.attr for a in ast.walk(node) if isinstance(a, ast.Attribute)}
        assert not attrs & {"strip", "lower", "count", "split"}, (name, attrs)
        assert not [r for r in ast.walk(node) if isinstance(r, ast.Raise)
                    and "ValueError" in ast.dump(r)], name
    assert callable(mod.normalize_email)


def test_behaviour_kept():
    accounts = {}
    create_account(accounts, "ann", " ANN@x.io")
    with pytest.raises(KeyError):
        create_account(accounts, "ann", "other@x.io")
    with pytest.raises(ValueError):
        create_account(accounts, "cy", "cy@nodot")
    assert "cy" not in accounts
    with pytest.raises(ValueError):
        change_email(accounts, "ann", "@x.io")
    assert accounts["ann"] == {"email": "ann@x.io", "active": True}
    deactivate(accounts, "ann")
    assert change_email(accounts, "ann", "New@X.io ") == {"email": "new@x.io", "active": False}
