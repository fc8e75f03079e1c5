"""Serving the web app's static files."""

from pathlib import Path


def read_static(root, name):
    """The bytes of the file `name` (a relative path from the URL) under directory `root`."""
    base = Path(root).resolve()
    target = (base / name).resolve()
    if not target.is_relative_to(base):
        raise PermissionError(f"{name!r} is outside the static folder")
    return target.read_bytes()
