from app.codes import encode
from app.models import Link, LinkIn


class LinkStore:
    def __init__(self) -> None:
        self._links: dict[str, Link] = {}

    def add(self, data: LinkIn) -> Link:
        link = Link(url=data.url, code=encode(len(self._links) + 1))
        self._links[link.code] = link
        return link

    def get(self, code: str) -> Link | None:
        return self._links.get(code)

    def hit(self, code: str) -> Link | None:
        link = self._links.get(code)
        if link is None:
            return None
        self._links[code] = link.model_copy(update={"hits": link.hits + 1})
        return self._links[code]
