"""list_files, grep_search and lint_file."""

from codeloop.tools import search_tools


def _tree(root):
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("def Foo():\n    return 1\n")
    (root / "pkg" / "b.py").write_text("x = foo()\n")
    (root / "notes.md").write_text("foo in docs\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("foo")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "a.pyc").write_bytes(b"\0foo")


def test_list_files_recursive_with_pattern(box, ws):
    _tree(ws.root)
    assert box.run("list_files", {}).output.splitlines() == ["notes.md", "pkg/a.py", "pkg/b.py"]
    assert box.run("list_files", {"path": "pkg", "pattern": "b*"}).output == "pkg/b.py"
    assert "No files matching" in box.run("list_files", {"pattern": "*.rs"}).output
    (ws.root / "empty").mkdir()
    assert "no files yet; create files with write_file" in box.run(
        "list_files", {"path": "empty"}).output
    assert "does not exist" in box.run("list_files", {"path": "nowhere"}).output
    assert not box.run("list_files", {"path": "../"}).ok


def test_list_files_says_when_capped(box, ws, monkeypatch):
    monkeypatch.setattr(search_tools, "MAX_LISTED", 3)
    for i in range(5):
        (ws.root / f"f{i}.txt").write_text("x")
    out = box.run("list_files", {}).output
    assert len(out.splitlines()) == 4 and "capped: showing 3 of 5 files" in out


def test_grep_reports_path_line_text(box, ws):
    _tree(ws.root)
    out = box.run("grep_search", {"pattern": "foo"}).output
    assert out.splitlines() == ["pkg/a.py:1: def Foo():", "pkg/b.py:1: x = foo()"]
    sensitive = box.run("grep_search", {"pattern": "foo", "case_sensitive": True}).output
    assert sensitive.splitlines() == ["pkg/b.py:1: x = foo()"]
    everything = box.run("grep_search", {"pattern": "foo", "file_pattern": "*"}).output
    assert "notes.md:1: foo in docs" in everything and ".git" not in everything
    literal = box.run("grep_search", {"pattern": "foo(", "case_sensitive": True}).output
    assert literal == "pkg/b.py:1: x = foo()"
    assert "No matches" in box.run("grep_search", {"pattern": "zzz"}).output


def test_grep_says_when_capped(box, ws, monkeypatch):
    monkeypatch.setattr(search_tools, "MAX_MATCHES", 2)
    (ws.root / "m.py").write_text("hit\nhit\nhit\n")
    out = box.run("grep_search", {"pattern": "hit"}).output
    assert "capped: showing 2 of 3 matches" in out


def test_lint_file_reports_score_and_findings(box, ws):
    (ws.root / "bad.py").write_text("import os\n\n\ndef f(x):\n    return y\n")
    out = box.run("lint_file", {"path": "bad.py"})
    assert out.ok
    lines = out.output.splitlines()
    assert lines[0] == "bad.py" and lines[1].startswith("Pylint Score: ")
    assert "Errors:" in out.output and "undefined-variable" in out.output
    assert "unused-import" in out.output


def test_lint_file_refuses_non_python_and_missing(box, ws):
    (ws.root / "x.txt").write_text("x")
    assert "Python files only" in box.run("lint_file", {"path": "x.txt"}).output
    assert "does not exist" in box.run("lint_file", {"path": "gone.py"}).output


def test_git_status_and_diff(box, ws):
    from codeloop import gitutil

    assert "not a git repository" in box.run("git_status", {}).output
    (ws.root / "a.py").write_text("x = 1\n")
    gitutil.init_repo(ws.root)
    gitutil.commit_all(ws.root, "first")
    assert "clean" in box.run("git_status", {}).output
    (ws.root / "a.py").write_text("x = 2\n")
    (ws.root / "new.py").write_text("y = 1\n")
    assert box.run("git_status", {}).output.splitlines() == [" M a.py", "?? new.py"]
    diff = box.run("git_diff", {}).output
    assert "-x = 1\n+x = 2" in diff and "New untracked files (not in the diff): new.py" in diff
    assert "No changes in new.py" not in box.run("git_diff", {"path": "new.py"}).output
    assert box.run("git_diff", {"path": "a.py"}).output.count("diff --git") == 1
