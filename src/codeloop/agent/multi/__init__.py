"""Multi-agent mode: planner (read-only) -> implementer -> validator, with a fix loop."""
