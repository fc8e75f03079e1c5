"""Which of the four task types a request is: rules first, the model only when the rules
cannot tell, and the user's `--type` over both.

Rules, in order:
1. content words ("write/draft/compose ... post/tweet/article/email/announcement/blog") ->
   generate_content; a request that is essentially an arithmetic expression ("17 * 23",
   "what is 3 times 4?", "compute (2 + 3) ** 2") -> general. Only numbers, operators
   (+ * / ^ % ** x, plus, minus, times, divided by, ...) and parentheses may follow the
   frame ("what is", "calculate"...): a path, "lines 6-8" or a date (2024-01-01) is not
   arithmetic, and '-' between numbers is a minus only with spaces around it;
2. with a repository: analysis words ("analyze/analyse/overview/summarize/describe/explain/
   report" with "repository/repo/project/codebase/architecture/structure") -> analyze_repo;
   anything that reads as a question (a question word, or "?") -> answer_question;
3. without a repository: a question or arithmetic -> general.
What none of these decide goes to the model (a one-word JSON answer); without a model it is
`answer_question` with a repository and `general` without.
"""

from __future__ import annotations

import re

from codeloop.ask.state import TASK_TYPES, TaskType

_CONTENT = re.compile(
    r"\b(write|draft|compose|create|generate|craft)\b.{0,60}\b(post|tweet|thread|article|"
    r"e-?mail|announcement|blog|newsletter|poem|story|essay|pitch|bio|description|linkedin)\b",
    re.IGNORECASE | re.DOTALL)
_ANALYZE = re.compile(
    r"\b(analy[sz]e|analysis|overview|summari[sz]e|summary|describe|explain|report|audit|"
    r"review)\b.{0,60}\b(repository|repo|project|codebase|code base|architecture|structure)\b",
    re.IGNORECASE | re.DOTALL)
_QUESTION = re.compile(
    r"^\s*(where|which|what|how|why|who|when|does|do|is|are|can|list|find|show|name|"
    r"tell me|give me)\b|\?\s*$", re.IGNORECASE)
_ARITHMETIC_WORDS = re.compile(r"\b(calculate|compute|solve|integral|derivative|sum of|"
                               r"square root)\b", re.IGNORECASE)
# What may come before and after the expression itself ("what is 2 + 2?", "2 + 2 =").
_FRAME_START = re.compile(r"^(?:what\s+is|what's|whats|how\s+much\s+is|what\s+does|"
                          r"calculate|compute|evaluate|work\s+out|solve)\s+")
_FRAME_END = re.compile(r"(?:\s+(?:equal|equals|make|give))?[\s?.!=]*$")
_TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<num>\d+(?:\.\d+)?)|(?P<op>\*\*|[+*/^%×÷]|x(?![a-z]))|(?P<minus>-)"
    r"|(?P<word>(?:plus|minus|times|multiplied\s+by|divided\s+by|over|mod|modulo|"
    r"to\s+the\s+power\s+of)\b)|(?P<post>(?:squared|cubed)\b)|(?P<open>\()|(?P<close>\))")


def is_arithmetic(task: str) -> bool:
    """Whether `task` is essentially an arithmetic expression (see the module's rule 1)."""
    text = _FRAME_START.sub("", task.strip().lower(), count=1)
    text = _FRAME_END.sub("", text, count=1).strip()
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            return False  # a word, a path, a name: not an expression
        if match.lastgroup != "space":
            tokens.append((match.lastgroup, match.start(), match.end()))
        pos = match.end()
    operand, depth, operations = True, 0, 0  # operand: an operand is expected next
    for kind, start, end in tokens:
        if operand:
            if kind == "num":
                operand = False
            elif kind == "open":
                depth += 1
            elif kind == "minus" and end < len(text) and text[end] in "0123456789(":
                pass  # a sign, written against its number
            else:
                return False
        elif kind in ("op", "word") or (kind == "minus" and _spaced(text, start, end)):
            operand, operations = True, operations + 1
        elif kind == "close" and depth > 0:
            depth -= 1
        elif kind == "post":
            operations += 1
        else:
            return False  # "6-8", "2024-01-01": a range or a date, not a subtraction
    return not operand and depth == 0 and operations > 0


def _spaced(text: str, start: int, end: int) -> bool:
    return start > 0 and text[start - 1].isspace() and end < len(text) and \
        text[end].isspace()

SCHEMA = {"type": "object", "properties": {"task_type": {"type": "string",
                                                         "enum": list(TASK_TYPES)}},
          "required": ["task_type"], "additionalProperties": False}


def by_rules(task: str, has_repo: bool) -> TaskType | None:
    """The type the rules give, or None when they cannot tell."""
    if _CONTENT.search(task):
        return "generate_content"
    if is_arithmetic(task):  # "what is 17 * 23?" is arithmetic, repository or not
        return "general"
    if has_repo:
        if _ANALYZE.search(task):
            return "analyze_repo"
        if _QUESTION.search(task):
            return "answer_question"
        return None
    if _QUESTION.search(task) or _ARITHMETIC_WORDS.search(task):
        return "general"
    return None


def default_type(has_repo: bool) -> TaskType:
    return "answer_question" if has_repo else "general"


def check_type(task_type: TaskType, has_repo: bool) -> TaskType:
    """A type that needs a repository, without one, is answered as a general question."""
    if task_type in ("analyze_repo", "answer_question") and not has_repo:
        return "general"
    return task_type
