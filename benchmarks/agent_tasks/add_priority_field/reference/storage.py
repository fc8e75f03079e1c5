"""Tasks saved as a JSON list of objects."""

import json
from pathlib import Path

from models import Task


def to_dict(task: Task) -> dict:
    return {"title": task.title, "done": task.done, "tags": list(task.tags),
            "priority": task.priority}


def from_dict(data: dict) -> Task:
    return Task(title=data["title"], done=bool(data.get("done", False)),
                tags=list(data.get("tags", [])), priority=int(data.get("priority", 0)))


def save(tasks: list[Task], path: Path) -> None:
    Path(path).write_text(json.dumps([to_dict(t) for t in tasks], indent=2))


def load(path: Path) -> list[Task]:
    path = Path(path)
    if not path.exists():
        return []
    return [from_dict(item) for item in json.loads(path.read_text())]
