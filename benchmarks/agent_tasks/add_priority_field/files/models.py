from dataclasses import dataclass, field


@dataclass
class Task:
    """One to-do item."""

    title: str
    done: bool = False
    tags: list[str] = field(default_factory=list)

    def has_tag(self, tag: str) -> bool:
        return tag.lower() in (t.lower() for t in self.tags)
