"""Nothing the model wrote is hidden from the person who approves it (issue 50, item 3):
every control, format (bidi overrides and isolates, zero-width, BOM) and line-separator
character in a diff shows as a visible marker in the terminal (the UI: test_browser_approval),
by one rule; and the review's security gate flags bidi controls in every text file of a
change, whatever its language (bandit saw them in `.py` only: a `.js` change read as an admin
check while `return true` ran for everyone)."""

from __future__ import annotations

import io
import sys
import unicodedata

import pytest
from rich.console import Console

from codeloop.commands.review_view import render_pending
from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.checks import security_findings
from codeloop.review.diffs import make_diff
from codeloop.review.service import ReviewRequest, start_review
from codeloop.store import RunStore
from codeloop.textsafe import printable

# Trojan Source, the JavaScript form: the RLO/LRI pair makes the check read as a comment's
# end while `return true` runs for every user.
TROJAN_JS = ("function isAdmin(user) {\n"
             "    /*\u202e } \u2066if (user.role != 'admin')\u2069 \u2066 begin admins only */\n"
             "    return true;\n"
             "}\n")
HIDDEN = ["\u202e", "\u2066", "\u2069", "\u202a", "\u200b", "\u200f", "\ufeff", "\u2028",
          "\u2029", "\x1b", "\x00", "\x85", "\u00ad", "\u061c", "\U000e0041"]


def _rendered(diff: dict) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system=None, force_terminal=False)
    render_pending(console, {"pending_diffs": [diff], "workflow_type": "review",
                             "diff_digest": "ab" * 32})
    return buffer.getvalue()


def test_the_terminal_diff_shows_every_hidden_character_as_a_marker():
    after = TROJAN_JS + "".join(f"x{char}y\n" for char in HIDDEN)
    text = _rendered(dict(make_diff("app.js", "", after, "new file")))
    for char in HIDDEN:
        assert char not in text, f"U+{ord(char):04X} reached the terminal raw"
        assert f"⟪U+{ord(char):04X}⟫" in text
    assert "⟪U+202E⟫ } ⟪U+2066⟫if (user.role != 'admin')⟪U+2069⟫" in text
    assert "return true;" in text


def test_a_line_separator_is_not_a_line_break_in_the_diff():
    """JavaScript ends a line at U+2028; the diff shows it as a marker inside one line (the
    file's lines are counted at newlines, as git counts them)."""
    diff = make_diff("app.js", "let ok = false;\n", "let ok = false;\u2028ok = true;\n", "")
    assert diff["added"] == 1 and diff["removed"] == 1
    assert "+let ok = false;⟪U+2028⟫ok = true;" in _rendered(dict(diff))


def test_printable_uses_the_same_rule():
    for char in HIDDEN:
        assert char not in printable(f"a{char}b")
    assert printable("tab\tnew\nline é ✓") == "tab\tnew\nline é ✓"


def test_the_rule_is_every_control_format_and_separator_character():
    from codeloop.textsafe import hidden_pattern

    pattern = hidden_pattern()
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        wanted = char not in "\t\n" and unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")
        assert bool(pattern.fullmatch(char)) == wanted, f"U+{code:04X}"


@pytest.mark.parametrize("path", ["app.js", "README.md", "notes.txt", "deploy.sh",
                                  "config.yaml", "calc.py", "Makefile"])
def test_the_gate_flags_bidi_controls_in_every_text_file(path):
    findings = security_findings(path, TROJAN_JS)
    bidi = [f for f in findings if f["tool"] == "hidden-text"]
    assert bidi and all(f["severity"] == "high" for f in bidi)
    assert bidi[0]["line"] == 2 and "U+202E" in bidi[0]["message"]


def test_a_review_with_a_bidi_control_in_a_js_file_is_not_approved(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.js").write_text(TROJAN_JS)
    clean = TROJAN_JS.replace("\u202e", "").replace("\u2066", "").replace("\u2069", "")
    fix = (f"app.js\n<<<<<<< SEARCH\n{TROJAN_JS.splitlines()[1]}\n=======\n"
           f"{clean.splitlines()[1]}\n>>>>>>> REPLACE\n")
    approve = {"json": {"approved": True, "issues": [], "suggestions": []}}
    llm = ScriptedLLM([approve, fix, approve])
    with RunStore(tmp_path / "runs.db") as store:
        out = start_review(ReviewRequest(workspace=ws, files=["app.js"]), llm, store)
    # the model approved the file as it was; the HIGH finding overruled it
    assert "U+202E" in llm.calls[1][-1].content
    assert out.status == "awaiting_approval"
    assert "\u202e" not in out.pending_diffs[0]["modified_content"]
