"""Run it, don't guess it: a question that holds a call expression of the repository's own code
("what does `naturalsize(3000000)` return?", "which exception does `parse('x')` raise?") is
answered from running that call in the sandbox (tools/run_call.py), not from reading the code
and guessing the arithmetic.

find_call picks the call out of the question (the longest piece of it that parses as a Python
call whose function the repository defines at module level, by ast); observe runs it; the
observation's text (observation_text) is the generator's evidence and, when the model's answer
leaves it out, the line the answer ends with (observed_line), citing the definition that ran.
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath
from typing import Any

from codeloop.ask.tools.architecture import python_module_name
from codeloop.ask.tools.definitions import find_definitions
from codeloop.ask.tools.run_call import clean, run_call
from codeloop.ask.tools.walk import RepoIndex

MAX_CALL_CHARS = 400
_START = re.compile(r"[A-Za-z_][\w.]*\(")
_CHAINED = re.compile(r"\.[A-Za-z_]\w*\(|\[")  # Box().size(), parse(x)[0]


def call_candidates(question: str) -> list[str]:
    """Pieces of the question that parse as one call expression, longest first."""
    found = []
    for m in _START.finditer(question):
        end = _closing(question, m.end() - 1)
        if end is None:
            continue
        while (more := _CHAINED.match(question, end + 1)) is not None:
            chained = _closing(question, more.end() - 1)
            if chained is None:
                break
            end = chained
        text = question[m.start():end + 1]
        if len(text) > MAX_CALL_CHARS:
            continue
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(node, ast.Call):
            found.append(text)
    return sorted(dict.fromkeys(found), key=len, reverse=True)


def _closing(text: str, open_at: int) -> int | None:
    depth, quote, i = 0, "", open_at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def callee_names(expr: str) -> list[str]:
    """The outer call's function name first, then the other names the expression uses."""
    node = ast.parse(expr, mode="eval").body
    assert isinstance(node, ast.Call)
    func = node.func
    first = func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else None)
    names = [first] if first else []
    names += [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]
    return list(dict.fromkeys(names))


def root_names(expr: str) -> list[str]:
    """Names the expression starts dotted chains from (`inflection` in inflection.x(...)):
    the sandbox imports them as modules when the defining module does not bind them."""
    tree = ast.parse(expr, mode="eval")
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                out.append(base.id)
    return list(dict.fromkeys(out))


def find_call(question: str, index: RepoIndex) -> dict[str, Any] | None:
    """{expr, name, definition {path, line, ...}} for the question's call of a function or
    class the repository defines at module level (not in a test); else, for "how many ... in
    NAME" or "what is the value of NAME" about a module-level variable, `len(NAME)` or `NAME`;
    None when there is none of these."""
    for expr in call_candidates(question):
        for name in callee_names(expr):
            for hit in find_definitions(index, name):
                if hit["top_level"] and hit["kind"] != "variable" and hit["path"].endswith(".py"):
                    return {"expr": expr, "name": name, "definition": hit}
    return _variable_probe(question, index)


_HOW_MANY = re.compile(r"\bhow many\b", re.IGNORECASE)
_VALUE_OF = re.compile(r"\b(value of|what is|what's)\b", re.IGNORECASE)
_NAME = re.compile(r"`?\b([A-Za-z_][A-Za-z0-9_]*)\b`?")


def _variable_probe(question: str, index: RepoIndex) -> dict[str, Any] | None:
    counting = bool(_HOW_MANY.search(question))
    if not counting and not _VALUE_OF.search(question):
        return None
    for name in dict.fromkeys(_NAME.findall(question)):
        # a constant-like or snake_case name: not an ordinary word of the question
        if not ("_" in name or name.isupper()) or len(name) < 3:
            continue
        for hit in find_definitions(index, name):
            if hit["top_level"] and hit["kind"] == "variable" and hit["path"].endswith(".py"):
                return {"expr": f"len({name})" if counting else name, "name": name,
                        "definition": hit}
    return None


def import_place(index: RepoIndex, rel: str) -> tuple[str, str]:
    """(module name, the folder the repository is copied under) for a file of the repository:
    a repository that is itself a package (`__init__.py` at its root) is copied under its own
    name; a `src/` layout imports from inside src/."""
    prefix = index.root.name if index.has("__init__.py") else ""
    parts = [p for p in [prefix, *python_module_name(rel).split(".")] if p]
    if not prefix and parts[:1] == ["src"] and not index.has("src/__init__.py"):
        parts = parts[1:]
    return ".".join(parts), prefix


def observe(call: dict[str, Any], index: RepoIndex) -> dict[str, Any]:
    """The run of find_call's call: {expr, module, definition, status, value...}."""
    module, prefix = import_place(index, call["definition"]["path"])
    result = run_call(index, module, call["expr"], root_names(call["expr"]), prefix)
    return {"expr": clean(call["expr"]), "module": module, "definition": call["definition"],
            **result}


def where(obs: dict[str, Any]) -> str:
    """`path:line` and the code that stands on that line, quoted as it is written there (a
    method `def area`, not `def Box.area`; a variable by its name: `def UNCOUNTABLES` was a
    quote grounding rightly found nowhere)."""
    d = obs["definition"]
    name = d["qualname"].rsplit(".", 1)[-1]
    code = {"class": f"class {name}", "function": f"def {name}"}.get(d["kind"], name)
    return f"{d['path']}:{d['line']} (`{code}`)"


def observation_text(obs: dict[str, Any]) -> str:
    """What the run showed, as evidence for the generator (one short paragraph)."""
    if not obs:
        return ""
    status = obs.get("status")
    head = f"Ran `{obs['expr']}` in the sandbox; it is defined at {where(obs)}."
    if status == "returned":
        body = f"It returned `{obs.get('value', '')}` (type {obs.get('type', '?')})."
        if obs.get("text"):
            body += "\nPrinted, that string reads:\n" + obs["text"]
    elif status == "raised":
        body = f"It raised {obs.get('type', 'an exception')}: {obs.get('message', '')}"
    elif status == "missing":
        return (f"Could not run `{obs['expr']}`: missing {obs.get('name') or 'a module'} "
                f"(not installed here). Answer from reading the code at {where(obs)}, and say "
                "that the answer is from reading, not from running it.")
    else:
        return (f"Could not run `{obs['expr']}` ({status}: {obs.get('message', '')}). Answer "
                f"from reading the code at {where(obs)}.")
    if obs.get("stdout"):
        body += f"\nIt printed:\n{obs['stdout']}"
    return f"{head}\n{body}"


def observed_value(obs: dict[str, Any]) -> str:
    """The words an answer must hold to state the observation ('' when nothing ran)."""
    if obs.get("status") == "returned":
        return obs.get("value", "")
    if obs.get("status") == "raised":
        return obs.get("type", "")
    return ""


def states_observation(answer: str, obs: dict[str, Any]) -> bool:
    """The answer gives what the run showed (or, when it could not run, says so)."""
    if obs.get("status") not in ("returned", "raised"):
        return "could not run" in answer.lower()
    value = observed_value(obs)
    if not value:
        return True
    if obs["status"] == "raised":  # the exception's type and the start of its message
        message = obs.get("message", "").strip("'\"")[:30]
        return value in answer and (not message or message in answer)
    bare = value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" \
        else value
    text = obs.get("text", "")
    return value in answer or bare in answer or bool(text and text.strip() in answer)


def observed_line(obs: dict[str, Any]) -> str:
    """The sentence an answer ends with when it does not state what the run showed."""
    if obs.get("status") == "returned":
        line = f"Running `{obs['expr']}` returns `{obs.get('value', '')}`"
    elif obs.get("status") == "raised":
        line = (f"Running `{obs['expr']}` raises {obs.get('type', '')}: "
                f"{obs.get('message', '')}".rstrip(": "))
    else:
        why = (f"missing {obs.get('name') or 'a module'}" if obs.get("status") == "missing"
               else f"{obs.get('status')}, {obs.get('message', '')}".rstrip(", "))
        return (f"(Could not run `{obs['expr']}`: {why}; this answer is from reading the "
                f"code.)\nRead: {where(obs)}")
    # The citation starts its own line, so grounding checks it against the definition's quote.
    return f"{line} (observed in the sandbox).\nDefinition that ran: {where(obs)}"


def definition_chunk(index: RepoIndex, obs: dict[str, Any], max_lines: int = 40) -> dict:
    """The definition that ran, as a retrieved chunk the generator sees with its real lines."""
    d = obs["definition"]
    lines = index.lines(d["path"])[d["start"] - 1:min(d["end"], d["start"] - 1 + max_lines)]
    return {"path": d["path"], "start": d["start"], "end": d["start"] + len(lines) - 1,
            "name": d["qualname"], "kind": d["kind"], "text": "\n".join(lines), "score": 0.0,
            "module": PurePosixPath(d["path"]).stem}
