"""Edits out of model replies: whole files and SEARCH/REPLACE blocks, applied tolerantly."""

from __future__ import annotations

from codeloop.jobs.edits import apply_blocks, edit_blocks, whole_files
from codeloop.review.diffs import make_diff, pending_changes

ART = [{"file_path": "pkg/calc.py", "content": "def add(a, b):\n    return a - b\n",
        "language": "python"},
       {"file_path": "util.py", "content": "X = 1\n", "language": "python"}]


def test_whole_files_read_each_file_line_and_its_block():
    reply = ("Here you go.\nFILE: a.py\n```python\nA = 1\n```\n**File: `pkg/b.py`**\n"
             "```python\nB = 2\n```\n")
    assert whole_files(reply) == {"a.py": "A = 1\n", "pkg/b.py": "B = 2\n"}
    assert whole_files("```python\nC = 3\n```", default_path="c.py") == {"c.py": "C = 3\n"}
    assert whole_files("no code at all", default_path="c.py") == {}


def test_search_replace_blocks_apply_tolerantly_to_the_named_file():
    reply = ("pkg/calc.py\n```python\n<<<<<<< SEARCH\n  return a - b\n=======\n"
             "  return a + b\n>>>>>>> REPLACE\n```\n")
    [block] = edit_blocks(reply)
    assert block.path == "pkg/calc.py"
    result = apply_blocks(ART, [block])
    assert result.applied == 1 and not result.failures
    assert result.artifacts[0]["content"] == "def add(a, b):\n    return a + b\n"
    assert ART[0]["content"].endswith("a - b\n")  # the input is not mutated


def test_a_block_naming_the_file_by_its_basename_and_a_new_file():
    reply = ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
             ">>>>>>> REPLACE\n\nnew_mod.py\n<<<<<<< SEARCH\n=======\nY = 2\n>>>>>>> REPLACE\n")
    result = apply_blocks(ART, edit_blocks(reply))
    assert result.applied == 2
    paths = [a["file_path"] for a in result.artifacts]
    assert paths == ["pkg/calc.py", "util.py", "new_mod.py"]
    assert result.artifacts[2]["content"] == "Y = 2\n"


def test_an_unmatched_edit_reports_the_closest_lines():
    reply = ("pkg/calc.py\n<<<<<<< SEARCH\n    return a * b  # times\n=======\n    return 0\n"
             ">>>>>>> REPLACE\n")
    result = apply_blocks(ART, edit_blocks(reply))
    [failure] = result.failures
    assert failure.path == "pkg/calc.py" and "return a - b" in failure.candidates
    assert result.applied == 0 and result.artifacts[0]["content"] == ART[0]["content"]


def test_unified_diffs_count_lines_and_pending_skips_unchanged_files():
    diff = make_diff("a.py", "x = 1\ny = 2\n", "x = 1\ny = 3\nz = 4", "why")
    assert diff["added"] == 2 and diff["removed"] == 1
    assert diff["diff_hunks"].startswith("--- a/a.py\n+++ b/a.py\n")
    assert "\\ No newline at end of file" in diff["diff_hunks"]
    new = make_diff("n.py", None, "A = 1\n", "new")
    assert new["diff_hunks"].startswith("--- /dev/null\n") and new["original_content"] == ""
    originals = {"pkg/calc.py": ART[0]["content"], "util.py": "X = 0\n"}
    [changed] = pending_changes(originals, ART, "because")
    assert changed["file_path"] == "util.py" and changed["description"] == "changed: because"


def test_a_made_up_file_name_edits_the_only_file():
    reply = ("path/to/file.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
             ">>>>>>> REPLACE\n")
    result = apply_blocks(ART[:1], edit_blocks(reply))
    assert result.applied == 1 and result.artifacts[0]["content"].endswith("a + b\n")
    # with two files it is not guessed
    assert apply_blocks(ART, edit_blocks(reply)).failures[0].path == "path/to/file.py"


def test_a_whole_file_rewrite_in_diff_mode_is_taken_only_when_it_is_the_whole_file():
    from codeloop.jobs.edits import rewritten_files

    two = [{"file_path": "pw.py", "language": "python",
            "content": "import hashlib\n\ndef hash_password(p):\n    return p\n\n"
                       "def verify_password(p, s):\n    return p == s\n"}]
    whole = ("pw.py\n```python\nimport os\n\ndef hash_password(p):\n    return 'x' + p\n\n"
             "def verify_password(p, s):\n    return hash_password(p) == s\n```\n")
    # what the 1.5B answered in the review benchmark: a bare file name, then the file
    assert rewritten_files(whole, two) == {
        "pw.py": whole.split("```python\n")[1].split("```")[0]}
    snippet = "pw.py\n```python\ndef hash_password(p):\n    return 'x' + p\n```\n"
    assert rewritten_files(snippet, two) == {}  # verify_password would be deleted
    assert rewritten_files("pw.py\n```python\ndef (:\n```\n", two) == {}  # does not parse
    assert rewritten_files("other.py\n```python\nX = 1\n```\n",
                           two + [dict(two[0], file_path="b.py")]) == {}  # names no file


def test_a_whole_file_after_a_file_line_is_taken_whatever_its_language():
    """A JSON, YAML or shell file is a file too: its block is not dropped for not being
    Python (the context-first edit could not change config.json before)."""
    reply = ("FILE: config.json\n```json\n{\"timeout\": 30}\n```\n\n"
             "FILE: deploy/app.yaml\n```yaml\nreplicas: 2\n```\n\n"
             "FILE: run.sh\n```bash\necho hi\n```\n\n"
             "FILE: settings.py\n```python\nx = 1\n```\n")
    assert whole_files(reply) == {"config.json": '{"timeout": 30}\n',
                                  "deploy/app.yaml": "replicas: 2\n", "run.sh": "echo hi\n",
                                  "settings.py": "x = 1\n"}


def test_a_python_file_skips_a_shell_block_before_its_code():
    reply = "FILE: app.py\n```bash\npip install flask\n```\n```python\nimport flask\n```\n"
    assert whole_files(reply) == {"app.py": "import flask\n"}
