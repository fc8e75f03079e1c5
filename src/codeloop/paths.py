"""Where codeloop keeps its files: user cache (models, wheels), data (run store), config."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir, user_data_dir

APP = "codeloop"


def cache_dir() -> Path:
    return Path(os.environ.get("CODELOOP_CACHE_DIR") or user_cache_dir(APP))


def data_dir() -> Path:
    return Path(os.environ.get("CODELOOP_DATA_DIR") or user_data_dir(APP))


def config_dir() -> Path:
    return Path(os.environ.get("CODELOOP_CONFIG_DIR") or user_config_dir(APP))


def scratch_dir() -> Path:
    """Private working space of runs (build's worktrees): the user's own, never a shared
    temp dir another local user could have made first (see scratch.py)."""
    return Path(os.environ.get("CODELOOP_SCRATCH_DIR") or cache_dir() / "scratch")


def models_dir() -> Path:
    return cache_dir() / "models"


def default_store_path() -> Path:
    return data_dir() / "runs.sqlite"
