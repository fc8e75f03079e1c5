from inventory import Inventory


def test_remove_lowers_the_count():
    inv = Inventory()
    inv.add("apple", 5)
    assert inv.remove("apple", 2) == 3
    assert inv.count("apple") == 3


def test_total():
    inv = Inventory()
    inv.add("apple", 5)
    inv.add("pear", 1)
    inv.remove("apple", 4)
    assert inv.total() == 2
