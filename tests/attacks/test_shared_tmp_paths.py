"""Fixed, predictable paths in a shared temp dir are a local user's way in: she makes them
first (a jest transform cache, a Go build cache) and what she put there runs as the next user
of it. No file codeloop generates names one, and a run without the sandbox (where /tmp is the
host's) gets private directories in place of the stack's `/tmp/...` settings."""

from __future__ import annotations

import json
import os
import sys

from codeloop.build.stacks import bundled_stacks, load_stack, render_files
from codeloop.sandbox.runner import run_command


def test_no_generated_project_file_names_a_fixed_path_in_the_shared_tmp():
    for name in bundled_stacks():
        stack = load_stack(name)
        files = {**render_files(stack.config_files, "demo", name),
                 **render_files(stack.scaffold_files, "demo", name)}
        for path, text in files.items():
            assert "/tmp/" not in text, f"{name}: {path} names a path in /tmp"
    package = json.loads(render_files(load_stack("nodejs-api").config_files, "demo",
                                      "nodejs-api")["package.json"])
    assert package["jest"]["cacheDirectory"].startswith("<rootDir>/")


def test_without_the_sandbox_the_stacks_tmp_settings_become_private_dirs(tmp_path):
    show = ("import json, os; print(json.dumps({k: os.environ.get(k) for k in "
            "('GOCACHE', 'GOPATH', 'TMPDIR', 'KEEP')}))")
    result = run_command([sys.executable, "-c", show], workspace=tmp_path, mode="cow",
                         env={**load_stack("go-api").test_env, "KEEP": "/tmpfoo"},
                         unsafe_no_sandbox=True, timeout=60)
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["KEEP"] == "/tmpfoo"  # only /tmp itself and paths below it are moved
    for key in ("GOCACHE", "GOPATH", "TMPDIR"):
        value = seen[key]
        assert value != "/tmp" and not value.startswith("/tmp/go"), (key, value)
        parent = os.path.dirname(value)
        assert not os.path.exists(parent), "the private dir goes with the run"
    assert os.path.basename(seen["GOCACHE"]) == "go-cache"
