"""The ask job's four repository tools (structure, sources, dependencies, architecture) and
the BM25 retrieval, all reading through one guarded walk of the repository (walk.py)."""
