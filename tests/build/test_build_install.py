"""The dependency step runs with the npm and pip caches in a throw-away directory (the
user's caches are not written), lifecycle scripts off whatever a config file says, and the
directory is gone afterwards."""

from __future__ import annotations

import json
from pathlib import Path

from codeloop.build.install import install_dependencies
from codeloop.build.stacks import load_stack

RECORD = ("import json, os, pathlib; cache = pathlib.Path(os.environ['PIP_CACHE_DIR']); "
          "cache.mkdir(parents=True); (cache / 'planted').write_text('x'); "
          "json.dump({'env': dict(os.environ)}, open('seen.json', 'w'))")


def test_installs_run_with_temporary_caches(tmp_path, monkeypatch):
    user_home = tmp_path / "home"
    user_home.mkdir()
    (user_home / ".npmrc").write_text("ignore-scripts=false\n")
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("npm_config_cache", str(user_home / ".npm"))
    monkeypatch.setenv("PIP_CACHE_DIR", str(user_home / ".cache" / "pip"))
    data = load_stack("python-api").model_dump()
    data.update(installed_check=[], install_command=["{python}", "-c", RECORD])
    stack = type(load_stack("python-api")).model_validate(data)
    project = tmp_path / "project"
    project.mkdir()

    result = install_dependencies(stack, project)

    assert result.ok and not result.skipped, result.message
    seen = json.loads((project / "seen.json").read_text())
    env, home = seen["env"], Path(seen["env"]["PIP_CACHE_DIR"]).parent
    assert env["HOME"] == str(user_home)  # the user's registry config still applies
    assert not home.is_relative_to(user_home)
    assert home.name.startswith("codeloop-install-")
    assert env["npm_config_cache"] == str(home / "npm-cache")
    assert env["PIP_CACHE_DIR"] == str(home / "pip-cache")
    assert env["npm_config_ignore_scripts"] == "true"
    assert not home.exists()  # removed afterwards, with what was written there
    assert sorted(p.name for p in user_home.iterdir()) == [".npmrc"]
