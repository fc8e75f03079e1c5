from pydantic import BaseModel, Field


class ItemIn(BaseModel):
    name: str = Field(min_length=1, max_length=50)
    quantity: int = Field(ge=0)
    price: float = Field(gt=0)


class Item(ItemIn):
    id: int
