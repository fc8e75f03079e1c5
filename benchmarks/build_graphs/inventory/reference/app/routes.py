from fastapi import APIRouter, HTTPException
from pydantic import BaseModel

from app.models import Item, ItemIn
from app.reports import low_stock, total_value
from app.storage import Inventory, OutOfStock

router = APIRouter()
inventory = Inventory()


class TakeIn(BaseModel):
    amount: int


@router.post("/items", status_code=201)
def create(data: ItemIn) -> Item:
    return inventory.add(data)


@router.get("/items/{item_id}")
def read(item_id: int) -> Item:
    item = inventory.get(item_id)
    if item is None:
        raise HTTPException(404, "item not found")
    return item


@router.post("/items/{item_id}/take")
def take(item_id: int, body: TakeIn) -> Item:
    try:
        return inventory.take(item_id, body.amount)
    except KeyError:
        raise HTTPException(404, "item not found") from None
    except OutOfStock as exc:
        raise HTTPException(409, str(exc)) from None


@router.get("/report")
def report() -> dict:
    items = inventory.all()
    return {"total_value": total_value(items), "low_stock": low_stock(items, 5)}
