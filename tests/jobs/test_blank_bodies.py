"""The failing function shown without its body after two echoes (jobs/edit_engine/
blank_bodies.py): which functions a failure names, what the blanked file keeps, and what of
the old body the failure output may not show again."""

from __future__ import annotations

import ast

from codeloop.jobs.edit_engine.blank_bodies import (
    PLACEHOLDER,
    blank_bodies,
    blanked_view,
    failing_functions,
    without_lines_of,
    without_placeholder,
)

CODE = '''"""Text helpers."""

LIMIT = 3


def slugify(title):
    """URL slug of `title`."""
    words = title.split()
    return "-".join(words).lower()


def word_count(text):
    return len(text.split())


class Store:
    def add(self, item):
        """Keep `item`."""
        def check(value):
            return value
        self.items.append(check(item))
'''


def test_the_functions_the_failure_calls_come_first():
    output = ">       assert slugify('Hello,  World!') == 'hello-world'\nE   AssertionError"
    assert failing_functions(output, {"t.py": CODE}, ["t.py"]) == {"t.py": ["slugify"]}


def test_else_the_function_holding_a_line_the_failure_points_at():
    # a finding names a line, no call: the function around it (line 13: word_count's body)
    output = "HIGH security finding in t.py line 13: B324 weak hash"
    assert failing_functions(output, {"t.py": CODE}, ["t.py"]) == {"t.py": ["word_count"]}


def test_else_the_functions_the_failure_names_and_none_outside_the_files_to_edit():
    output = "the change request is not implemented yet: word_count counts dashes"
    assert failing_functions(output, {"t.py": CODE}, ["t.py"]) == {"t.py": ["word_count"]}
    assert failing_functions(output, {"t.py": CODE}, []) == {}
    assert failing_functions("ImportError: no module named x", {"t.py": CODE}, ["t.py"]) == {}


def test_a_blanked_body_keeps_the_signature_the_docstring_and_everything_else():
    blanked = blank_bodies(CODE, ["slugify", "add"])
    assert blanked is not None
    ast.parse(blanked)  # still a module: the reply is merged into the real file by name
    assert 'def slugify(title):\n    """URL slug of `title`."""\n' \
           f"    {PLACEHOLDER}\n    raise NotImplementedError\n" in blanked
    assert "words = title.split()" not in blanked and "self.items.append" not in blanked
    assert "def check(value)" not in blanked  # nested in add: gone with its body
    assert "LIMIT = 3" in blanked and "return len(text.split())" in blanked
    assert blank_bodies(CODE, ["missing"]) is None and blank_bodies("def (:", ["f"]) is None


def test_the_failure_output_does_not_quote_the_old_body_again():
    shown = {"t.py": CODE}
    output = ("    def slugify(title):\n        words = title.split()\n"
              ">       return \"-\".join(words).lower()\nE   TypeError: slugify('x') failed\n"
              "t.py:9: TypeError")
    view, said = blanked_view(output, shown, ["t.py"])
    assert said == ["t.py: slugify"]
    kept = without_lines_of(output, shown, view)
    assert "words = title.split()" not in kept and '"-".join' not in kept
    assert "def slugify(title):" in kept and "TypeError: slugify('x') failed" in kept
    assert without_lines_of(output, shown, shown) == output


def test_the_placeholder_copied_back_is_dropped():
    reply = f"def slugify(title):\n    {PLACEHOLDER}\n    return title.lower()\n"
    assert without_placeholder(reply) == "def slugify(title):\n    return title.lower()\n"
    assert without_placeholder(CODE) == CODE
