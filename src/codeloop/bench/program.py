"""From a model's reply to the program that gets scored.

Extraction is codeloop.jobs.extract (shared with `solve`), which sanitizes like
EvalPlus: the code block that defines the entry point, a truncated tail cut until it
parses, only imports, definitions and constants kept, so stray example calls, prints or a
wrong `assert` the model added cannot sink a correct solution. For HumanEval the prompt's
preamble (imports, helper functions such as `poly`) goes first, so the check and the
solution find them; the model's own definitions come later and win.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeloop.bench.datasets import PublicProblem
from codeloop.jobs.extract import code_blocks, extract_code


@dataclass(frozen=True)
class Program:
    code: str  # empty when the reply held no usable code
    note: str = ""  # why the code is empty or was changed, for the failure reason


def _defines(code: str, name: str) -> bool:
    return re.search(rf"^(?:async\s+)?def\s+{re.escape(name)}\s*\(", code, re.MULTILINE) is not None


def prompt_preamble(prompt: str, entry_point: str) -> str:
    """The prompt's code before the entry point's def: imports and helper functions."""
    try:
        module = ast.parse(prompt)
    except SyntaxError:
        return ""
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return "\n".join(prompt.splitlines()[: first - 1]).strip("\n")
    return ""


def _join(preamble: str, code: str) -> str:
    """preamble + code with any `from __future__` import hoisted to the top."""
    future = [ln for ln in code.splitlines() if ln.startswith("from __future__")]
    body = "\n".join(ln for ln in code.splitlines() if not ln.startswith("from __future__"))
    parts = ["\n".join(future), preamble, body]
    return "\n\n\n".join(p.strip("\n") for p in parts if p.strip()) + "\n"


def build_program(problem: PublicProblem, reply_text: str) -> Program:
    """The program scored for this reply (see the module docstring)."""
    if not reply_text.strip():
        return Program("", "empty reply")
    preamble = prompt_preamble(problem.prompt, problem.entry_point)
    code = extract_code(reply_text, problem.entry_point)
    if code is not None:
        return Program(_join(preamble, code))
    if preamble or _defines(problem.prompt, problem.entry_point):
        # A bare function body (a completion): the prompt plus it may be the whole function.
        for candidate in code_blocks(reply_text) or [reply_text]:
            as_completion = extract_code(problem.prompt + candidate, problem.entry_point)
            if as_completion is not None and _has_body(as_completion, problem.entry_point):
                return Program(_join(preamble, as_completion), "reply read as a completion")
    return Program("", f"no code defining {problem.entry_point} in the reply")


def _has_body(code: str, entry_point: str) -> bool:
    """The entry point has statements beyond its docstring (the completion added some)."""
    for node in ast.parse(code).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point:
            body = node.body
            has_doc = body and isinstance(body[0], ast.Expr) and isinstance(
                body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
            return len(body) > (1 if has_doc else 0)
    return False
