"""The client's settings: config.json next to this file, with defaults for what it leaves out."""

import json
from dataclasses import dataclass
from pathlib import Path

CONFIG_PATH = Path(__file__).with_name("config.json")
DEFAULTS = {"base_url": "http://localhost:8000", "timeout": 10, "verbose": False}


@dataclass(frozen=True)
class Settings:
    base_url: str
    timeout: int
    verbose: bool


def load_settings(path: Path = CONFIG_PATH) -> Settings:
    data = {}
    if Path(path).exists():
        data = json.loads(Path(path).read_text())
    merged = {**DEFAULTS, **data}
    return Settings(base_url=str(merged["base_url"]), timeout=int(merged["timeout"]),
                    verbose=bool(merged["verbose"]))
