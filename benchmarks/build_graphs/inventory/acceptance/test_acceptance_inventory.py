"""Hidden acceptance tests of the inventory graph (written before any run)."""

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError


def test_item_in_checks_its_fields():
    from app.models import ItemIn

    assert ItemIn(name="bolt", quantity=0, price=0.5).quantity == 0
    for bad in ({"name": "", "quantity": 1, "price": 1.0},
                {"name": "bolt", "quantity": -1, "price": 1.0},
                {"name": "bolt", "quantity": 1, "price": 0}):
        with pytest.raises(ValidationError):
            ItemIn(**bad)


def test_item_has_an_id():
    from app.models import Item

    assert Item(id=7, name="nut", quantity=2, price=1.5).id == 7


def test_line_total_rounds():
    from app.pricing import line_total

    assert line_total(3, 0.1) == 0.3
    assert line_total(0, 9.99) == 0


def test_apply_discount():
    from app.pricing import apply_discount

    assert apply_discount(200.0, 15) == 170.0
    assert apply_discount(9.99, 0) == 9.99
    assert apply_discount(10.0, 100) == 0
    with pytest.raises(ValueError):
        apply_discount(10.0, 101)
    with pytest.raises(ValueError):
        apply_discount(10.0, -1)


def _inventory():
    from app.models import ItemIn
    from app.storage import Inventory

    inventory = Inventory()
    inventory.add(ItemIn(name="bolt", quantity=10, price=0.25))
    inventory.add(ItemIn(name="nut", quantity=2, price=0.1))
    return inventory


def test_inventory_numbers_from_one():
    inventory = _inventory()
    assert sorted(i.id for i in inventory.all()) == [1, 2]
    assert inventory.get(2).name == "nut"
    assert inventory.get(3) is None


def test_inventory_take_and_restock():
    inventory = _inventory()
    assert inventory.take(1, 4).quantity == 6
    assert inventory.get(1).quantity == 6
    assert inventory.restock(2, 5).quantity == 7
    assert inventory.get(2).quantity == 7


def test_inventory_take_too_many_raises_out_of_stock():
    from app.storage import OutOfStock

    inventory = _inventory()
    with pytest.raises(OutOfStock):
        inventory.take(2, 3)
    assert inventory.get(2).quantity == 2


def test_inventory_unknown_id_raises_key_error():
    inventory = _inventory()
    with pytest.raises(KeyError):
        inventory.take(42, 1)
    with pytest.raises(KeyError):
        inventory.restock(42, 1)


def test_reports():
    from app.models import Item
    from app.reports import low_stock, total_value

    items = [Item(id=1, name="nut", quantity=2, price=0.1),
             Item(id=2, name="bolt", quantity=10, price=0.25),
             Item(id=3, name="axle", quantity=1, price=3.0)]
    assert total_value(items) == 5.7
    assert total_value([]) == 0
    assert low_stock(items, 5) == ["axle", "nut"]


def _client():
    from app.main import app

    return TestClient(app)


def test_post_and_get_an_item():
    client = _client()
    made = client.post("/items", json={"name": "gear", "quantity": 3, "price": 2.0})
    assert made.status_code == 201
    item_id = made.json()["id"]
    assert client.get(f"/items/{item_id}").json()["name"] == "gear"
    assert client.get("/items/98765").status_code == 404


def test_take_over_http():
    client = _client()
    item_id = client.post("/items", json={"name": "cog", "quantity": 3,
                                          "price": 1.0}).json()["id"]
    taken = client.post(f"/items/{item_id}/take", json={"amount": 2})
    assert taken.status_code == 200 and taken.json()["quantity"] == 1
    assert client.post(f"/items/{item_id}/take", json={"amount": 2}).status_code == 409
    assert client.post("/items/98765/take", json={"amount": 1}).status_code == 404


def test_report_over_http():
    client = _client()
    client.post("/items", json={"name": "zzrare", "quantity": 1, "price": 4.0})
    report = client.get("/report")
    assert report.status_code == 200
    body = report.json()
    assert "zzrare" in body["low_stock"]
    assert body["total_value"] >= 4.0
