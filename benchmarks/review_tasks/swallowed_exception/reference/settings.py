"""User settings stored as JSON."""

import json

DEFAULTS = {"theme": "light", "autosave": True}


def load_settings(path):
    """The settings in the JSON file at `path`, on top of DEFAULTS."""
    settings = dict(DEFAULTS)
    try:
        with open(path, encoding="utf-8") as handle:
            settings.update(json.load(handle))
    except FileNotFoundError:
        return settings
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from exc
    return settings
