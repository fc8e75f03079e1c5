"""The fields a project's pydantic model declares without a default, read from source."""

from __future__ import annotations

import ast
from collections.abc import Callable

from codeloop.build.contract import path_of

Read = Callable[[str], "str | None"]  # a project file's text, or None


class ModelFields:
    """The fields a project model declares without a default, its bases' included, read
    from the module `tree` itself (unless not `own`) or the module of `package` it imports
    the class from."""

    def __init__(self, tree: ast.Module, package: str, read: Read, *, own: bool = True):
        self._classes: dict[str, ast.ClassDef] = {}
        if own:
            self._add(tree)
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level \
                    and node.module.split(".", 1)[0] == package:
                text = read(path_of(node.module))
                try:
                    self._add(ast.parse(text or ""))
                except (SyntaxError, ValueError, RecursionError):
                    continue

    def add_source(self, text: str | None) -> None:
        """Also know the classes of a module's source (one on main that the file imports
        them from indirectly, through the task's own module not written yet)."""
        try:
            self._add(ast.parse(text or ""))
        except (SyntaxError, ValueError, RecursionError):
            return

    def _add(self, tree: ast.Module) -> None:
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                self._classes.setdefault(node.name, node)

    def known(self, cls: str) -> bool:
        return cls in self._classes

    def fields(self, cls: str) -> set[str]:
        """Every field `cls` declares, with or without a default, its bases' included."""
        return set(self._declared(cls))

    def required(self, cls: str) -> set[str]:
        """The fields `cls` declares without a default, its bases' included."""
        return {name for name, needed in self._declared(cls).items() if needed}

    def based_on(self, cls: str) -> list[str]:
        """The known classes that name `cls` among their bases."""
        return [name for name, node in self._classes.items()
                if any(isinstance(b, ast.Name) and b.id == cls for b in node.bases)]

    def built_from(self, cls: str) -> list[str]:
        """The known classes built on `cls`: based on it, or declaring every field it does
        and more (bookmarks B1 at 4988dd1: `class Bookmark(BaseModel)` with BookmarkIn's
        url, title and tags and an id, not `class Bookmark(BookmarkIn)`)."""
        own = self.fields(cls)
        return [name for name in self._classes if name != cls and (
            name in self.based_on(cls) or (own and own < self.fields(name)))]

    def _declared(self, cls: str, seen: frozenset[str] = frozenset()) -> dict[str, bool]:
        """{field: declared without a default}, the bases' first, a class's own overriding."""
        node = self._classes.get(cls)
        if node is None or cls in seen:
            return {}
        declared: dict[str, bool] = {}
        for base in node.bases:
            if isinstance(base, ast.Name):
                declared.update(self._declared(base.id, seen | {cls}))
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) \
                    and "ClassVar" not in ast.unparse(item.annotation):
                declared[item.target.id] = _without_default(item)
        return declared


def _without_default(item: ast.AnnAssign) -> bool:
    if "ClassVar" in ast.unparse(item.annotation):
        return False
    value = item.value
    if value is None:
        return True
    if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(
            value.func, "attr", "")) == "Field":
        given = {k.arg for k in value.keywords}
        first = value.args[0] if value.args else None
        return not given & {"default", "default_factory"} and (
            first is None or (isinstance(first, ast.Constant) and first.value is Ellipsis))
    return False
