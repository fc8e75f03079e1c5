"""Serving the web app's static files."""

from pathlib import Path


def read_static(root, name):
    """The bytes of the file `name` (a relative path from the URL) under directory `root`."""
    return (Path(root) / name).read_bytes()
