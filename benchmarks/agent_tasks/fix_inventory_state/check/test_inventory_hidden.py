import pytest
from inventory import Inventory


@pytest.fixture
def inv():
    inv = Inventory()
    inv.add("apple", 5)
    inv.add("pear", 2)
    return inv


def test_cannot_remove_more_than_is_left(inv):
    inv.remove("apple", 3)
    with pytest.raises(ValueError):
        inv.remove("apple", 3)
    assert inv.count("apple") == 2


def test_removing_all_forgets_the_item(inv):
    assert inv.remove("pear", 2) == 0
    assert inv.names() == ["apple"] and inv.count("pear") == 0 and inv.total() == 5


def test_add_after_remove(inv):
    inv.remove("apple", 5)
    assert inv.add("apple", 1) == 1
    assert inv.names() == ["apple", "pear"]


def test_failed_remove_changes_nothing(inv):
    with pytest.raises(ValueError):
        inv.remove("plum", 1)
    with pytest.raises(ValueError):
        inv.remove("apple", 0)
    assert inv.total() == 7 and inv.names() == ["apple", "pear"]
    assert inv.history == [("add", "apple", 5), ("add", "pear", 2)]


def test_history_records_removals(inv):
    inv.remove("apple", 1)
    inv.remove("apple", 1)
    assert inv.history[-2:] == [("remove", "apple", 1), ("remove", "apple", 1)]
    assert inv.count("apple") == 3
