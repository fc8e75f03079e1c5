"""A tool's text arguments (a file's content; an edit's old and new text), asked for as plain
text in ``` blocks instead of inside the JSON of the arguments (two_step mode).

Why: inside a JSON string every newline, quote and backslash must be escaped. The embedded
0.5B, asked for write_file's arguments as JSON, wrote `def add(a, b):\\n    return a + b`
with the escapes doubled (a literal backslash-n in the file) and ran on inside the string
to its token limit. In a ``` block a model writes code the way it saw code in training.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from codeloop.agent.prompts import loop_text
from codeloop.pipeline.extract import code_blocks, outer_block
from codeloop.tools.base import Tool


class TextReplyError(ValueError):
    """The reply does not hold the text blocks asked for; the message says what is wrong."""


_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".sh": "bash",
              ".md": "markdown", ".json": "json", ".toml": "toml", ".yaml": "yaml",
              ".yml": "yaml", ".html": "html", ".css": "css"}


def text_request(tool: Tool, args: dict[str, Any], exists: bool) -> str:
    """The request for `tool`'s text arguments, after its other arguments `args`; `exists`:
    the file is there (a write to a new file is its whole content, whatever the lines)."""
    path = str(args.get("path") or "")
    start, end = args.get("start_line"), args.get("end_line")
    return loop_text(f"text_request_{tool.name}", path=path, start_line=start, end_line=end,
                     whole=start is None or not exists,
                     language=_LANGUAGES.get(PurePosixPath(path).suffix.lower(), ""))


def parse_text_reply(text: str, names: tuple[str, ...], cut_off: bool) -> dict[str, str]:
    """The texts of `names` from a reply, one ``` block each, in order. `cut_off`: the reply
    ended at the token limit (an unclosed last block is then incomplete, not accepted)."""
    if len(names) == 1:
        found = outer_block(text)
        if found is None:
            raise TextReplyError(f"no ``` block with the text of {names[0]}")
        body, closed = found
        if not closed and cut_off:
            raise TextReplyError(f"the text of {names[0]} was cut off at the token limit; "
                                 "write less at a time (change the file in parts)")
        return {names[0]: _without_final_newline(body)}
    blocks = code_blocks(text, any_language=True)
    if len(blocks) < len(names):
        raise TextReplyError(f"{len(blocks)} ``` block(s) where {len(names)} were asked for "
                             f"({', '.join(names)}, in this order)")
    if cut_off and len(blocks) == len(names) and not text.rstrip().endswith(("```", "~~~")):
        raise TextReplyError(f"the text of {names[-1]} was cut off at the token limit")
    return {name: _without_final_newline(block) for name, block in zip(names, blocks)}


def _without_final_newline(block: str) -> str:
    # A block's text ends with the newline before the closing fence; the texts are compared
    # (edit_file's old_text) and written as lines, so that newline is not part of them.
    return block.removesuffix("\n")
