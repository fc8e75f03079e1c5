"""Reading project configs written in YAML."""

import yaml


def load_config(text):
    """The config document in `text` as a dict ({} for an empty document)."""
    data = yaml.load(text, Loader=yaml.Loader)
    return data or {}
