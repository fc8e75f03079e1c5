"""Static metrics with radon, in process: maintainability index, cyclomatic complexity per
function, Halstead measures and line counts. Code is parsed, never run.

The code is model-written: radon's visitors recurse, so a 1,500-term expression raised
RecursionError and killed `codeloop solve`. Every computation here degrades to a result
saying why metrics are unavailable; none raises, and the input size is capped."""

from __future__ import annotations

from tokenize import TokenError

from pydantic import BaseModel, Field
from radon.complexity import cc_visit
from radon.metrics import h_visit, mi_visit
from radon.raw import analyze
from radon.visitors import Class, Function

from codeloop.quality.grades import ComplexityGrade, MiGrade, complexity_grade, mi_grade
from codeloop.quality.syntax import find_syntax_error

MAX_METRICS_CHARS = 100_000  # radon parses the code several times; beyond this it is slow


class FunctionComplexity(BaseModel):
    name: str  # dotted for methods and closures: "Stack.push", "outer.inner"
    lineno: int
    complexity: int
    grade: ComplexityGrade


class HalsteadMetrics(BaseModel):
    volume: float = 0.0
    difficulty: float = 0.0
    effort: float = 0.0
    bugs: float = 0.0


class QualityMetrics(BaseModel):
    maintainability_index: float = 0.0
    mi_grade: MiGrade = "Poor"
    functions: list[FunctionComplexity] = Field(default_factory=list)
    max_complexity: int = 0
    halstead: HalsteadMetrics = Field(default_factory=HalsteadMetrics)
    loc: int = 0
    lloc: int = 0
    sloc: int = 0
    comments: int = 0
    syntax_error: str | None = None  # "line 3: invalid syntax" when the code does not compile
    # "metrics unavailable: expression too deeply nested" when radon could not measure it
    unavailable: str | None = None

    def table_rows(self) -> list[tuple[str, str]]:
        """(label, value) pairs for a two-column display."""
        if self.syntax_error:
            return [("Syntax error", self.syntax_error)]
        if self.unavailable:
            return [("Metrics", self.unavailable)]
        rows = [
            ("Maintainability index", f"{self.maintainability_index:.1f} ({self.mi_grade})"),
            ("Max complexity", f"{self.max_complexity} ({complexity_grade(self.max_complexity)})"),
        ]
        rows += [
            (f"  {fn.name} (line {fn.lineno})", f"{fn.complexity} ({fn.grade})")
            for fn in self.functions
        ]
        rows += [
            ("Halstead volume", f"{self.halstead.volume:.1f}"),
            ("Halstead difficulty", f"{self.halstead.difficulty:.1f}"),
            ("Halstead effort", f"{self.halstead.effort:.1f}"),
            ("Lines (total / logical / source / comments)",
             f"{self.loc} / {self.lloc} / {self.sloc} / {self.comments}"),
        ]
        return rows

    def summary(self) -> str:
        """One line, for prompts and logs."""
        if self.syntax_error:
            return f"syntax error: {self.syntax_error}"
        if self.unavailable:
            return self.unavailable
        return (
            f"MI {self.maintainability_index:.1f} ({self.mi_grade}), "
            f"max complexity {self.max_complexity} ({complexity_grade(self.max_complexity)}), "
            f"{len(self.functions)} function(s), {self.lloc} logical lines"
        )


def compute_metrics(code: str) -> QualityMetrics:
    """Measure `code`. Code that does not compile yields a result with `syntax_error` set and
    the line counts radon can still give; code radon cannot measure (too large, too deeply
    nested) yields `unavailable` saying why. It never raises."""
    if len(code) > MAX_METRICS_CHARS:
        return QualityMetrics(unavailable=f"metrics unavailable: the code is {len(code):,} "
                                          f"characters (the limit is {MAX_METRICS_CHARS:,})",
                              loc=len(code.splitlines()))
    problem = find_syntax_error(code)
    if problem is not None:
        return QualityMetrics(syntax_error=problem.describe(), **_line_counts(code))
    try:
        return _measure(code)
    except (RecursionError, MemoryError):
        why = "expression too deeply nested"
    except Exception as exc:  # noqa: BLE001 - a radon bug on odd code must not stop a run
        why = f"radon failed ({type(exc).__name__})"
    return QualityMetrics(unavailable=f"metrics unavailable: {why}", **_line_counts(code))


def _measure(code: str) -> QualityMetrics:
    functions = sorted(_function_complexities(cc_visit(code)), key=lambda fn: fn.lineno)
    halstead = h_visit(code).total
    mi = float(mi_visit(code, multi=True))
    return QualityMetrics(
        maintainability_index=round(mi, 2),
        mi_grade=mi_grade(mi),
        functions=functions,
        max_complexity=max((fn.complexity for fn in functions), default=0),
        halstead=HalsteadMetrics(
            volume=float(halstead.volume),
            difficulty=float(halstead.difficulty),
            effort=float(halstead.effort),
            bugs=float(halstead.bugs),
        ),
        **_line_counts(code),
    )


def _function_complexities(blocks: list, prefix: str = "") -> list[FunctionComplexity]:
    """Flatten radon's blocks into functions. cc_visit lists methods both inside their class
    and at top level (with `fullname`), so classes are skipped; closures are nested only."""
    found: list[FunctionComplexity] = []
    for block in blocks:
        if isinstance(block, Class) or not isinstance(block, Function):
            continue
        name = f"{prefix}{block.fullname}"
        found.append(FunctionComplexity(
            name=name,
            lineno=block.lineno,
            complexity=block.complexity,
            grade=complexity_grade(block.complexity),
        ))
        found += _function_complexities(block.closures, prefix=f"{name}.")
    return found


def _line_counts(code: str) -> dict[str, int]:
    try:
        raw = analyze(code)
    # radon's tokenizer fails on broken code; deep nesting can exhaust the stack
    except (SyntaxError, ValueError, TokenError, RecursionError, MemoryError):
        return {"loc": len(code.splitlines())}
    except Exception:  # noqa: BLE001 - line counts are a nicety, never a crash
        return {"loc": len(code.splitlines())}
    return {"loc": raw.loc, "lloc": raw.lloc, "sloc": raw.sloc, "comments": raw.comments}
