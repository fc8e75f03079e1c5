from pydantic import BaseModel, Field, field_validator


class BookmarkIn(BaseModel):
    url: str
    title: str = Field(min_length=1, max_length=100)
    tags: list[str] = Field(default_factory=list)

    @field_validator("url")
    @classmethod
    def _web_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return value


class Bookmark(BookmarkIn):
    id: int
