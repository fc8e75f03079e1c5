"""What an edit that passes the tests may still leave undone of the request, read by rules
(no model call).

Why: passing tests end the context-first edit, but a request that adds behaviour is rarely
covered by the tests that existed before it. Measured on the agent suite (embedded 1.5B,
runs at f303bd3 and d23e27b): 4 of the 8 failed tasks ended "the tests pass" with the request
half done, each in a way a rule sees:

- a file the request names, untouched (config_max_retries: settings.py);
- a name the request asks for that no file has (config_max_retries: max_retries);
- a function the request names, left as it was (add_priority_field: format_report);
- a name the request says must keep working, gone (cli_json_flag: --min);
- and (refactor_extract_helper) a helper the request asks to move copied code into, made, with
  the copies still in the functions they were to leave.

The notes go back to the model once (jobs/react/context_first.py), which may also answer
that nothing more is needed. Names in a sentence that removes or renames things are not
checked: there, a name disappearing is the request done.
"""

from __future__ import annotations

import ast
import re

from codeloop.jobs.request_files import (
    asks_to_change_tests,
    is_test_path,
    mentioned_names,
    named_files,
)

# A sentence that takes names away: their absence afterwards is what was asked.
_REMOVES = re.compile(r"\b(remove[sd]?|delete[sd]?|drop(s|ped)?|rename[sd]?|replace[sd]?|"
                      r"no longer|get rid|deprecate[sd]?)\b", re.IGNORECASE)
_QUOTED_NOTE = re.compile(r'The request says "(?P<part>.*)", and ', re.DOTALL)
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_WORD = re.compile(r"(?<![\w.-])[A-Za-z_][A-Za-z0-9_]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`(-])|\n\s*\n")
# Where a sentence's parts meet: the note quotes the part that names the thing.
_CLAUSE_END = re.compile(r",\s+and\s+|;\s+|:\s+(?=[a-z])|,\s+but\s+|\s+and\s+(?=\S+\.\w+\b)")
MAX_QUOTE = 200
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# A request to take repeated code out into one place.
_DEDUPLICATE = re.compile(r"\b(move|extract|helper|duplicat\w*|copied|copies|same code|"
                          r"refactor\w*|deduplicat\w*)\b", re.IGNORECASE)
MIN_COPIED_LINES = 2  # lines of a new helper still found in another function
MIN_LINE_CHARS = 12  # shorter lines (`return x`, `else:`) are alike by chance
MAX_NOTES = 4


def _sentences(request: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(request) if s.strip()]


def _clauses(sentence: str) -> list[str]:
    """The sentence cut where its parts meet, never inside parentheses."""
    out, start = [], 0
    for match in _CLAUSE_END.finditer(sentence):
        head = sentence[:match.start()]
        if head.count("(") == head.count(")"):
            out.append(sentence[start:match.start()])
            start = match.end()
    return [*out, sentence[start:]]


def _said(sentence: str, name: str) -> str:
    """The part of the sentence that names `name`, quoted."""
    parts = [p for p in _clauses(sentence) if _has(p, name)] or [sentence]
    text = " ".join(parts[0].split()).strip(" .")
    if len(text) > MAX_QUOTE:
        text = text[:MAX_QUOTE].rsplit(" ", 1)[0] + " ..."
    return f'The request says "{text}"'


def quoted_part(note: str) -> str:
    """The part of the request a note quotes (the note itself when it quotes none)."""
    match = _QUOTED_NOTE.match(note)
    return match["part"] if match else note


def _code_like(word: str) -> bool:
    """A name people write for code, not a plain word: snake_case, CamelCase, a flag."""
    core = word.lstrip("-")
    return word.startswith("--") or ("_" in core.strip("_") and len(core) > 2) or bool(
        re.search(r"[a-z][A-Z]", core))


def _names(sentence: str, *, code_only: bool) -> list[str]:
    """The names a sentence holds, file names left out; with `code_only` the code-like ones,
    else also capitalised words (a class named in prose: "the Task dataclass")."""
    for file_name in mentioned_names(sentence):
        sentence = sentence.replace(file_name, " ")
    out: list[str] = []
    for match in list(_FLAG.finditer(sentence)) + list(_WORD.finditer(sentence)):
        word = match.group(0)
        if word.startswith("-") and not word.startswith("--"):
            continue  # a short option or a dash in prose: too ambiguous to check
        wanted = _code_like(word) or (not code_only and word[:1].isupper() and len(word) > 1)
        if wanted and word not in out:
            out.append(word)
    return out


def _has(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def _definitions(source: str) -> dict[str, str]:
    """Each function, class and method of a Python file: name -> its source text (a name
    defined twice keeps the first)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, _DEFS) and node.name not in out:
            out[node.name] = ast.get_source_segment(source, node) or ""
    return out


def _body_lines(node: ast.AST, source: str) -> list[str]:
    """A function's statements as stripped source lines, its docstring left out."""
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None),
                                                             ast.Constant):
        body = body[1:]
    lines: list[str] = []
    for stmt in body:
        lines += [line.strip() for line in
                  (ast.get_source_segment(source, stmt) or "").splitlines()]
    return [line for line in lines if len(line) >= MIN_LINE_CHARS]


def _copies_left(request: str, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Functions that still hold the lines of a helper the edit made, when the request asks
    for repeated code to go into one place."""
    if not _DEDUPLICATE.search(request):
        return []
    notes: list[str] = []
    for path, source in after.items():
        if not path.endswith(".py") or is_test_path(path):
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError):
            continue
        old = _definitions(before.get(path, ""))
        functions = [n for n in ast.walk(tree)
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for helper in (f for f in functions if f.name not in old):
            wanted = set(_body_lines(helper, source))
            holding = [f.name for f in functions if f.name in old and
                       len(wanted & set(_body_lines(f, source))) >= MIN_COPIED_LINES]
            if holding:
                sentence = next((s for s in _sentences(request) if _has(s, helper.name)),
                                next(s for s in _sentences(request) if _DEDUPLICATE.search(s)))
                notes.append(f"{_said(sentence, helper.name)}, and {', '.join(holding)} still "
                             f"{'holds' if len(holding) == 1 else 'hold'} the lines now in {helper.name} ({path}): take them out "
                             f"and call {helper.name} instead.")
    return notes


def unmet_parts(request: str, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Notes on what the request names and the edit did not do. `before`: the files as they
    were when the turn began (those not there then are new); `after`: every text file of the
    project now. Test files count as places a name may be, never as files to change."""
    notes: list[str] = []
    kept = [s for s in _sentences(request) if not _REMOVES.search(s)]
    kept_text = " ".join(kept)
    named, _ = named_files(kept_text, sorted(after))
    if asks_to_change_tests(request):
        named = []  # "write tests for slugify in text.py": text.py is what the tests are of
    for path in named:
        if not is_test_path(path) and path in before and after.get(path) == before[path]:
            where = next((s for s in kept if _has(s, path)), kept_text)
            notes.append(f"{_said(where, path)}, and {path} has not changed.")
    everything = "\n".join(after.values())
    sources = [p for p in before if p.endswith(".py") and not is_test_path(p) and p in after]
    checked: set[str] = set()
    for sentence in kept:
        for name in _names(sentence, code_only=True):
            if name in checked:
                continue
            checked.add(name)
            gone = [p for p in before if not is_test_path(p) and _has(before[p], name)
                    and p in after and not _has(after[p], name)]
            if gone:
                notes.append(f"{_said(sentence, name)}, and your edit removed {name} from "
                             f"{', '.join(gone)}.")
            elif not _has(everything, name):
                notes.append(f"{_said(sentence, name)}, and no file has {name} yet.")
        for path in sources:
            old, new = _definitions(before[path]), _definitions(after[path])
            for name in _names(sentence, code_only=False):
                if name in old and old[name] == new.get(name) and after[path] != before[path]:
                    notes.append(f"{_said(sentence, name)}, and your edit left {name} "
                                 f"({path}) as it was.")
    notes += _copies_left(" ".join(kept), before, after) if kept else []
    unique = list(dict.fromkeys(notes))
    return unique[:MAX_NOTES]
