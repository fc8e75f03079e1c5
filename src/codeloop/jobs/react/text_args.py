"""A tool's text arguments (a file's content; an edit's old and new text), asked for as plain
text in ``` blocks instead of inside the JSON of the arguments (two_step mode), one block
per reply (asked for two blocks at once, the 1.5B wrote only the new text).

Why: inside a JSON string every newline, quote and backslash must be escaped. The embedded
0.5B, asked for write_file's arguments as JSON, wrote `def add(a, b):\\n    return a + b`
with the escapes doubled (a literal backslash-n in the file) and ran on inside the string
to its token limit. In a ``` block a model writes code the way it saw code in training.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from codeloop.jobs.extract import outer_block
from codeloop.jobs.react.prompts import loop_text
from codeloop.tools.base import Tool


class TextReplyError(ValueError):
    """The reply does not hold the text blocks asked for; the message says what is wrong."""


_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".sh": "bash",
              ".md": "markdown", ".json": "json", ".toml": "toml", ".yaml": "yaml",
              ".yml": "yaml", ".html": "html", ".css": "css"}


def text_request(tool: Tool, name: str, args: dict[str, Any], exists: bool) -> str:
    """The request for the text argument `name` of `tool`, after its other arguments `args`;
    `exists`: the file is there (a write to a new file is its whole content, whatever the
    lines)."""
    path = str(args.get("path") or "")
    start, end = args.get("start_line"), args.get("end_line")
    return loop_text(f"text_request_{tool.name}_{name}", path=path, start_line=start,
                     end_line=end, whole=start is None or not exists,
                     language=_LANGUAGES.get(PurePosixPath(path).suffix.lower(), ""))


def parse_text_reply(text: str, name: str, cut_off: bool) -> str:
    """The text in a reply's ``` block: from the first opening fence to the last closing
    one, so a file that holds fences itself (a README) stays whole. `cut_off`: the reply
    ended at the token limit (an unclosed block is then incomplete, not accepted)."""
    found = outer_block(text)
    if found is None:
        raise TextReplyError(f"no ``` block with the text of {name}")
    body, closed = found
    if not closed and cut_off:
        raise TextReplyError(f"the text of {name} was cut off at the token limit; write "
                             "less at a time (change the file in parts)")
    # A block's text ends with the newline before the closing fence; the texts are compared
    # (edit_file's old_text) and written as lines, so that newline is not part of them.
    return body.removesuffix("\n")
