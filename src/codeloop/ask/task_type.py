"""Which of the four task types a request is: rules first, the model only when the rules
cannot tell, and the user's `--type` over both.

Rules, in order:
1. content words ("write/draft/compose ... post/tweet/article/email/announcement/blog") ->
   generate_content; an arithmetic expression ("17 * 23") -> general;
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
_EXPRESSION = re.compile(r"\d\s*[-+*/^%x×]\s*\d")
_ARITHMETIC = re.compile(r"\d\s*[-+*/^%]\s*\d|\b(calculate|compute|solve|integral|derivative|"
                         r"sum of|square root)\b", re.IGNORECASE)

SCHEMA = {"type": "object", "properties": {"task_type": {"type": "string",
                                                         "enum": list(TASK_TYPES)}},
          "required": ["task_type"], "additionalProperties": False}


def by_rules(task: str, has_repo: bool) -> TaskType | None:
    """The type the rules give, or None when they cannot tell."""
    if _CONTENT.search(task):
        return "generate_content"
    if _EXPRESSION.search(task):  # "what is 17 * 23?" is arithmetic, repository or not
        return "general"
    if has_repo:
        if _ANALYZE.search(task):
            return "analyze_repo"
        if _QUESTION.search(task):
            return "answer_question"
        return None
    if _QUESTION.search(task) or _ARITHMETIC.search(task):
        return "general"
    return None


def default_type(has_repo: bool) -> TaskType:
    return "answer_question" if has_repo else "general"


def check_type(task_type: TaskType, has_repo: bool) -> TaskType:
    """A type that needs a repository, without one, is answered as a general question."""
    if task_type in ("analyze_repo", "answer_question") and not has_repo:
        return "general"
    return task_type
