"""The edit engine: one way for every job to have a model change files (see api.py)."""
