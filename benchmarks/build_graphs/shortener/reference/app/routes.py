from fastapi import APIRouter, HTTPException

from app.models import Link, LinkIn
from app.storage import LinkStore

router = APIRouter(prefix="/links")
store = LinkStore()


@router.post("", status_code=201)
def create(data: LinkIn) -> Link:
    return store.add(data)


@router.get("/{code}")
def read(code: str) -> Link:
    link = store.get(code)
    if link is None:
        raise HTTPException(404, "link not found")
    return link


@router.post("/{code}/hit")
def hit(code: str) -> Link:
    link = store.hit(code)
    if link is None:
        raise HTTPException(404, "link not found")
    return link
