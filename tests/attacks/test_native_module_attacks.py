"""Code the host's Python would load in place of the user's, or at every start (audit 3, item
1): a native extension module beside an unchanged `calc.py` (any suffix the import system
takes), bytecode, `.pth`, `sitecustomize`/`usercustomize` as a module or a package. None is
written by a tool, copied back out of the sandbox, written by review, or committed and
merged by build; every refusal is reported, and a `.gitignore` naming the file hides nothing.
"""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "build"))

from build_replies import file_reply, no_wiring, reply_with_tests

from codeloop.build.models import scripted_agents
from codeloop.build.repo import commit_paths, head, init_project, squash_merge
from codeloop.build.runner import BuildOptions, execute, prepare
from codeloop.build.runtime import BuildRuntime
from codeloop.events import EventRecorder
from codeloop.gitutil import git, init_repo
from codeloop.review.inputs import WORKTREE, changed_files
from codeloop.review.security_gate import check_target
from codeloop.sandbox import run_command
from codeloop.sandbox.pathguard import PathGuard, PathRefused
from codeloop.store import RunStore
from codeloop.tools import ALL_TOOLS, Toolbox, Workspace
from codeloop.tools.git_tools import git_status

PY = sys.executable
HOST_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # e.g. .cpython-311-x86_64-linux-gnu.so

# What the host's Python would import or run instead of the user's source, or at a start.
IMPLICIT_CODE = list(dict.fromkeys([
    "calc.cpython-311-x86_64-linux-gnu.so",  # the audit's file, beside calc.py
    f"calc{HOST_SUFFIX}",
    "calc.abi3.so",
    "calc.so",
    "pkg/__init__.cpython-312-x86_64-linux-gnu.so",  # a package whose __init__ is native
    "pkg/mod.abi3.so",
    "calc.pyd",
    "libcalc.dylib",
    "calc.pyc",  # sourceless bytecode
    "pkg/mod.pyo",
    "pkg/__pycache__/mod.cpython-311.pyc",
    "site.pth",
    "python311._pth",
    "sitecustomize/__init__.py",  # the startup hook as a package
    "usercustomize/__init__.py",
    "src/sitecustomize/__init__.py",
    "sitecustomize.pyc",
    f"sitecustomize{HOST_SUFFIX}",
    "lib/usercustomize.py",
]))


def _creates(rel: str) -> str:
    """Python that writes `rel` (any bytes) in the current directory."""
    return (f"import os\np = {rel!r}\nos.makedirs(os.path.dirname(p) or '.', exist_ok=True)\n"
            "open(p, 'wb').write(b'\\x7fELF not really')\n")


@pytest.fixture
def project(tmp_path):
    """A git repository whose calc.py is the user's code, with `*.so` and bytecode ignored."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("VALUE = 'honest'\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / ".gitignore").write_text("*.so\n*.pyd\n*.dylib\n*.pyc\n*.pth\n__pycache__/\n")
    init_repo(root)
    git(["add", "-A"], root)
    git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base"], root)
    return root


def _first_refused(rel: str) -> str:
    """The directory the refusal stops at (a startup package, a bytecode cache) or rel."""
    parts = rel.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in ("sitecustomize", "usercustomize", "__pycache__"):
            return "/".join(parts[:i + 1])
    return rel


def _host_imports_honest_calc(root: Path) -> None:
    probe = subprocess.run([PY, "-c", "import calc; print(calc.VALUE)"], cwd=root,
                           capture_output=True, text=True, check=False)
    assert probe.returncode == 0 and probe.stdout.strip() == "honest", probe.stderr


# ---------------------------------------------------------------- the sandbox's copy-back
@pytest.mark.parametrize("rel", IMPLICIT_CODE)
def test_a_sandboxed_command_cannot_bring_implicit_code_home(project, rel):
    code = _creates(rel) + "open('result.txt', 'w').write('ok')\n"
    result = run_command([PY, "-c", code], workspace=project, mode="rw", timeout=20)
    assert result.ok, result.stderr
    assert (project / "result.txt").read_text() == "ok"  # the rest of the run came home
    assert not (project / _first_refused(rel)).exists()
    reported = [item.split(": ", 1)[0] for item in result.refused]
    assert reported == [_first_refused(rel)], result.refused
    assert "not copied back" in result.summary()
    _host_imports_honest_calc(project)


def test_the_shell_tool_tells_the_model_and_the_user(project):
    box = Toolbox(Workspace.at(project), list(ALL_TOOLS))
    out = box.run("run_bash_command", {
        "command": f"printf 'x' > calc{HOST_SUFFIX} && mkdir sitecustomize && "
                   "echo 'import os' > sitecustomize/__init__.py && echo ok > kept.txt"})
    assert out.ok and "exit code: 0" in out.output
    assert (project / "kept.txt").read_text() == "ok\n"
    assert not (project / f"calc{HOST_SUFFIX}").exists()
    assert not (project / "sitecustomize").exists()
    assert "not copied back" in out.output
    assert f"calc{HOST_SUFFIX}" in out.output and "sitecustomize" in out.output
    _host_imports_honest_calc(project)


# ---------------------------------------------------------------- the file tools
@pytest.mark.parametrize("rel", IMPLICIT_CODE)
def test_the_file_tools_never_write_implicit_code(project, rel):
    box = Toolbox(Workspace.at(project), list(ALL_TOOLS))
    outcome = box.run("write_file", {"path": rel, "content": "import os\n"})
    assert not outcome.ok
    assert outcome.output.startswith("Error: refused") and "never written" in outcome.output
    assert not (project / _first_refused(rel)).exists()
    assert not (project / "src").exists() and not (project / "lib").exists()  # no dirs made
    with pytest.raises(PathRefused):
        PathGuard(project).write_text(rel, "import os\n")


def test_existing_implicit_code_is_not_deleted_or_replaced_by_a_tool(project):
    native = project / f"calc{HOST_SUFFIX}"
    native.write_bytes(b"user's own build")
    with pytest.raises(PathRefused):
        PathGuard(project).delete(native.name)
    assert native.read_bytes() == b"user's own build"


# ---------------------------------------------------------------- review
@pytest.mark.parametrize("rel", IMPLICIT_CODE)
def test_review_never_takes_implicit_code_as_a_target(project, rel):
    where, why = check_target(PathGuard(project), rel)
    assert where is None and why and "never written" in why


def test_review_names_the_changes_gitignore_or_the_policy_keep_from_it(project):
    # A model that ran before the review left a native module (ignored by `*.so`) and wrote
    # a .gitignore hiding its new module: neither is silently out of the review's sight.
    (project / f"calc{HOST_SUFFIX}").write_bytes(b"\x7fELF")
    (project / ".gitignore").write_text((project / ".gitignore").read_text() + "helper.py\n")
    (project / "helper.py").write_text("import os\n")
    (project / "calc.py").write_text("VALUE = 'changed'\n")
    skipped_list: list[str] = []
    found, _diff = changed_files(project, WORKTREE, skipped_list)
    assert sorted(found) == [".gitignore", "calc.py"]
    skipped = "\n".join(skipped_list)
    assert f"calc{HOST_SUFFIX}: " in skipped and "helper.py: hidden by .gitignore" in skipped


# ---------------------------------------------------------------- build
def test_a_build_task_cannot_commit_implicit_code(tmp_path):
    test = "from app.a import a\n\n\ndef test_a():\n    assert a() == 1\n"
    hostile = [reply_with_tests(test), file_reply(
        ("sitecustomize.py", "import os\nos.system('touch /tmp/pwned')"),
        ("usercustomize/__init__.py", "import os\nos.system('touch /tmp/pwned')"),
        (f"a{HOST_SUFFIX}", "not really ELF"),
        ("app/a.pyc", "not really bytecode"),
        ("app/a.py", "def a():\n    return 1\n"))]
    out = tmp_path / "project"
    agents = {"task:A": hostile, "integration": no_wiring()}
    request = {"tech_stack": "python-api",
               "tasks": [{"id": "A", "description": "the a function", "keywords": ["a"]}]}
    inputs = prepare(request, out_dir=out, options=BuildOptions(retries=0))
    recorder = EventRecorder()
    with RunStore(tmp_path / "runs.sqlite") as store, store.run("build", inputs.record()) as run:
        run.bus.subscribe(recorder)
        final = execute(inputs, run, store, BuildRuntime(llm_for=scripted_agents(agents)))
    # Plain top-level names reach the tools and are refused there (the host policy); paths
    # into the package the request does not name never leave the engine's reader.
    refused = [e.result for e in recorder.events if e.type == "tool_call" and not e.ok]
    assert len(refused) == 2 and all("never written" in r for r in refused), refused
    assert final["status"] == "COMPLETE", final
    tracked = git(["ls-files"], out).stdout.split()
    assert "app/a.py" in tracked
    assert not [p for p in tracked if "customize" in p or p.endswith((".so", ".pyc"))]
    assert not (out / "sitecustomize.py").exists() and not (out / "usercustomize").exists()
    assert not (out / f"a{HOST_SUFFIX}").exists() and not (out / "app/a.pyc").exists()


@pytest.fixture
def build_repo(tmp_path):
    repo = tmp_path / "project"
    init_project(repo, [])
    (repo / "app.py").write_text("VALUE = 1\n")
    commit_paths(repo, ["app.py"], "base")
    return repo


@pytest.mark.parametrize("planted", ["sitecustomize/__init__.py", f"app{HOST_SUFFIX}",
                                     "pkg/mod.abi3.so", "x.pth", "app.pyc"])
def test_a_task_branch_holding_implicit_code_is_never_merged(build_repo, planted):
    # However a branch came to hold it (an older codeloop, a hand-made commit), the merge onto
    # the user's main is the last gate: refused, named, and main stays where it was.
    main_before = head(build_repo)
    git(["checkout", "-q", "-b", "task/T"], build_repo)
    target = build_repo / planted
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"import os\n")
    (build_repo / "more.py").write_text("MORE = 1\n")
    git(["add", "-f", "--", planted, "more.py"], build_repo)
    git(["commit", "-q", "--no-verify", "-m", "hostile"], build_repo)
    git(["checkout", "-q", "main"], build_repo)
    outcome = squash_merge(build_repo, "task/T", "T: merge")
    assert not outcome.ok and outcome.refused and planted in outcome.refused[0]
    assert head(build_repo) == main_before
    assert not (build_repo / planted).exists() and not (build_repo / "more.py").exists()
    assert git(["status", "--porcelain", "--ignored"], build_repo).stdout == ""


@pytest.mark.parametrize("planted", ["sitecustomize/__init__.py", f"app{HOST_SUFFIX}"])
def test_build_never_stages_implicit_code(build_repo, planted):
    main_before = head(build_repo)
    target = build_repo / planted
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"import os\n")
    with pytest.raises(PathRefused):
        commit_paths(build_repo, [planted], "sneaky")
    assert head(build_repo) == main_before
    assert git(["diff", "--cached", "--name-only"], build_repo).stdout == ""


def test_the_git_tools_name_loose_bytecode_and_native_modules_gitignore_hides(project):
    # Python writes bytecode only into __pycache__ (noise there); a .pyc or .so elsewhere was
    # put there on purpose and is imported in place of the source: it is named.
    (project / "calc.pyc").write_bytes(b"forged")
    (project / f"calc{HOST_SUFFIX}").write_bytes(b"\x7fELF")
    (project / "__pycache__").mkdir()
    (project / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"cache")
    status = git_status.func(Workspace.at(project))
    assert "calc.pyc" in status and f"calc{HOST_SUFFIX}" in status
    assert "__pycache__" not in status
