"""Examples become tests: expression lines, doctest lines and arrow lines, as `expr == value`.

Accepted forms (one per line):
    count_vowels('Hello') == 2            an expression that must hold
    >>> count_vowels('Hello')             a doctest call ...
    2                                     ... and its expected value on the next line
    will_it_fly([3], 5) ➞ True            the arrow forms (➞, ==>, =>, ->, =) of docstrings
    f("5 apples", 19) -> 19 - 5 = 14      a worked value: arithmetic that gives the value
    decimal_to_binary(15)  # returns "db1111db"
    * anti_shuffle('Hi') returns 'Hi'     bullets, "for", "returns", "should return"
    For lst = [1, 2] the output should be 5    named inputs (see `named_examples`),
    Input: n = 5 / Output: 1                   when the parameter names are given

Only lines that parse as Python and call the task's function are kept, so prose in a
docstring never turns into a broken test.
"""

from __future__ import annotations

import ast
import builtins
import operator
import re

from codeloop.docstring_examples.comments import strip_comment
from codeloop.docstring_examples.named import named_examples

_ARROWS = ("==>", "➞", "=>", "->", "→")
_RETURNS_COMMENT = re.compile(r"^(?P<call>.+?)#\s*(?:returns?|should return|==|gives)\s*:?\s*(?P<value>.+)$")
# What docstrings put before an example ("* f(1) => 2", "for f(1) == 2", "assert f(1) => 2")
_LEAD = re.compile(r"^(?:[*\-\u2022]\s+|for\s+|assert\s+)", re.IGNORECASE)
# What they put between the call and its value
_CONNECTOR = re.compile(
    r"^(?:#\s*)?(?:==>|=>|==|->|\u279e|\u2192|=|returns?|should return|should be|gives)"
    r"\s*:?\s*(?P<value>.+)$", re.IGNORECASE)
# JSON/JavaScript spellings that docstrings use for Python's constants
_CONSTANTS = {"true": "True", "false": "False", "null": "None", "none": "None"}


def _calls(expr: str, entry_point: str) -> bool:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return False
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id == entry_point
        for node in ast.walk(tree)
    )


def _is_value(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return True


def _free_names_known(expr: str, known: set[str]) -> bool:
    """`is_happy(abcd) == true` is prose, not Python: every name must be a builtin or known."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return False
    bound = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)} | {
        t.id for c in ast.walk(tree) if isinstance(c, ast.comprehension)
        for t in ast.walk(c.target) if isinstance(t, ast.Name)}
    return all(
        n.id in known or n.id in bound or hasattr(builtins, n.id)
        for n in ast.walk(tree) if isinstance(n, ast.Name)
    )


def _value(text: str) -> str:
    """The expected value as Python: trailing punctuation and a trailing parenthetical
    remark dropped, `true`/`false`/`null` spelled the Python way; of a worked value
    (`19 - 5 - 6 = 8`), the result, when the arithmetic gives it."""
    text = strip_comment(text.strip()).rstrip(".,;")
    if not _is_value(text):
        remark = re.match(r"^(?P<value>.+?)\s+\([^()]*\)$", text)
        if remark and _is_value(remark["value"]):
            text = remark["value"]
        else:
            text = _worked_result(text) or text
    return _CONSTANTS.get(text.lower(), text)


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def _arithmetic(node: ast.expr) -> float | None:
    """The value of +, -, *, / over number literals (nothing else is evaluated)."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _arithmetic(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if left is None or right is None:
            return None
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except ZeroDivisionError:
            return None
    return None


def _worked_result(text: str) -> str | None:
    """`19 - 5 - 6 = 8` -> `8`: only when the left side is arithmetic on numbers whose
    value is the right side, so prose with an `=` in it never becomes an expected value."""
    work, sep, result = text.rpartition("=")
    if not sep or work.endswith(("=", "!", "<", ">")):
        return None
    try:
        left = _arithmetic(ast.parse(work.strip(), mode="eval").body)
        right = ast.literal_eval(result.strip())
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    if left is None or type(right) not in (int, float) or left != right:
        return None
    return result.strip()


def _call_then_value(line: str, entry_point: str) -> str | None:
    """`f(1, [2]) <connector> value`: the shortest prefix that is a call of the function,
    then a connector (==>, =, returns, # => ...), then a Python value."""
    if not line.startswith(entry_point + "("):
        return None
    for end in (i for i, ch in enumerate(line) if ch == ")"):
        call = line[: end + 1]
        try:
            node = ast.parse(call, mode="eval").body
        except SyntaxError:
            continue
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        connected = _CONNECTOR.match(line[end + 1:].strip())
        return _assertion(call, connected["value"], entry_point) if connected else None
    return None


def _assertion(call: str, expected: str, entry_point: str) -> str | None:
    call, expected = call.strip(), _value(expected)
    if not call or not expected or not _calls(call, entry_point) or not _is_value(expected):
        return None
    if _calls(expected, entry_point):  # `tri(3) = tri(2) + tri(1)` defines, it shows no value
        return None
    printed = re.fullmatch(r"print\((.*)\)", call)
    if printed and _calls(printed.group(1), entry_point):
        return f"str({printed.group(1)}) == {expected!r}"
    return f"{call} == {expected}"


def parse_examples(text: str, entry_point: str, known_names: set[str] | None = None,
                   params: list[str] | None = None) -> list[str]:
    """Turn an examples string (or a docstring) into assert expressions, without duplicates.
    Names other than builtins, `entry_point` and `known_names` make an example prose.
    With the function's `params`, examples that name their inputs count too."""
    found: list[str] = named_examples(text, entry_point, params) if params else []
    lines = [ln.strip() for ln in text.splitlines()]
    i = 0
    while i < len(lines):
        raw = lines[i] if lines[i].startswith(">>>") else _LEAD.sub("", lines[i])
        commented = _RETURNS_COMMENT.match(raw)
        line = strip_comment(raw)
        i += 1
        if not line.startswith(">>>") and not (_calls(line, entry_point) and _is_assertion(line)):
            connected = (_call_then_value(raw, entry_point)
                         or _call_then_value(line, entry_point))
            if connected:
                found.append(connected)
                continue
        if commented and not line.startswith(">>>"):
            assertion = _assertion(commented["call"], commented["value"], entry_point)
            if assertion:
                found.append(assertion)
                continue
        if line.startswith(">>>"):
            call = line[3:].strip()
            # The expected value is the next line, or as many lines as it takes to form one
            # Python value (a long list wrapped over lines); a blank line or prompt ends it.
            expected_lines: list[str] = []
            j = i
            while j < len(lines) and lines[j] and not lines[j].startswith(">>>"):
                expected_lines.append(strip_comment(lines[j]))
                j += 1
                if _is_value(" ".join(expected_lines)):
                    break
            i = j
            if not expected_lines:
                if _calls(call, entry_point) and _is_assertion(call):
                    found.append(call)
                continue
            assertion = _assertion(call, " ".join(expected_lines), entry_point)
            if assertion:
                found.append(assertion)
            continue
        arrow = next((a for a in _ARROWS if a in line), None)
        if arrow and not line.startswith("def "):
            call, _, expected = line.partition(arrow)
            assertion = _assertion(call, expected, entry_point)
            if assertion:
                found.append(assertion)
            continue
        line = line.removeprefix("assert ")
        if _calls(line, entry_point) and _is_assertion(line):
            found.append(line)
    known = {entry_point} | (known_names or set())
    return [a for a in dict.fromkeys(found) if _free_names_known(a, known)]


def _is_assertion(expr: str) -> bool:
    """A bare call proves nothing; an expression line must compare (or be boolean)."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Compare, ast.BoolOp)) or (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))


def top_level_names(code: str) -> set[str]:
    """Names a module defines at top level (imports, functions, classes, assignments)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def task_assertions(examples: str, docstring: str, entry_point: str, context: str = "",
                    params: list[str] | None = None) -> list[str]:
    """The task's own tests: its examples, plus the examples written in its docstring."""
    known = top_level_names(context)
    return list(dict.fromkeys(parse_examples(examples, entry_point, known, params)
                              + parse_examples(docstring, entry_point, known, params)))
