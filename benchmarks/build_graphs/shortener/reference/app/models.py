from pydantic import BaseModel, field_validator


class LinkIn(BaseModel):
    url: str

    @field_validator("url")
    @classmethod
    def _web_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return value


class Link(BaseModel):
    url: str
    code: str
    hits: int = 0
