"""Docstring examples read as checks (`parse`: `f(x) -> y`, doctest lines, arrow and "returns"
forms; `named`: examples that name their inputs): shared by solve, which turns a task's
examples into tests, and the agent, which checks the docstrings of the functions it changed."""
