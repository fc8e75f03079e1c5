"""codeloop: a local-first coding agent that turns a task into working, tested code."""

__version__ = "0.1.0"
