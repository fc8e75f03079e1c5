"""Find why code does not compile, as a short message with its line, without running it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SyntaxProblem:
    line: int
    column: int
    message: str

    def describe(self) -> str:
        return f"line {self.line}: {self.message}"


def find_syntax_error(code: str, filename: str = "solution.py") -> SyntaxProblem | None:
    """Compile (never execute) `code`; return the first problem or None.

    `compile` rather than `ast.parse`: it also catches errors raised after parsing, such as
    `return` outside a function, which the tools would otherwise report in confusing ways.
    """
    nul = code.find("\0")
    if nul >= 0:  # reported without a line by some Python versions, so locate it ourselves
        return SyntaxProblem(code.count("\n", 0, nul) + 1, 0, "source contains a null byte")
    try:
        compile(code, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError are subclasses
        return SyntaxProblem(exc.lineno or 1, exc.offset or 0, exc.msg or "invalid syntax")
    except ValueError as exc:  # defensive: compile's other input errors
        return SyntaxProblem(1, 0, str(exc))
    except (RecursionError, MemoryError):
        return SyntaxProblem(1, 0, "code is too deeply nested to compile")
    return None
