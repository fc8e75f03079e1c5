"""A context-first reply that rewrites a JSON file without a key the request does not name:
the key stays (jobs/json_keys.py). On the scripted model, the real sandbox, pytest and a git
workspace."""

from __future__ import annotations

import json

from agent_replies import scripted

from codeloop.agent.factory import agent_spec
from codeloop.agent.session import AgentSession
from codeloop.jobs.react.state import AgentLimits

CONFIG = '{\n  "timeout": 10,\n  "verbose": false\n}\n'
TESTS = ("import json\n\n\ndef test_config_parses():\n"
         "    assert json.load(open('config.json'))['timeout'] > 0\n")
REPLY = 'FILE: config.json\n```json\n{\n  "timeout": 30\n}\n```\n'


def _ask(repo, store, snapshots, request: str):
    (repo.root / "config.json").write_text(CONFIG)
    (repo.root / "test_config.py").write_text(TESTS)
    spec = agent_spec("single", repo, limits=AgentLimits())
    session = AgentSession(scripted(REPLY), spec, checkpointer=store.checkpointer(),
                           snapshots=snapshots, thread="json")
    return session.ask(request)


def test_a_key_the_reply_forgot_is_kept(repo, store, snapshots):
    result = _ask(repo, store, snapshots, "Set the timeout to 30 in config.json.")
    assert result.status == "finished"
    assert json.loads((repo.root / "config.json").read_text()) == {"timeout": 30,
                                                                   "verbose": False}


def test_a_key_the_request_removes_is_gone(repo, store, snapshots):
    result = _ask(repo, store, snapshots,
                  "Set the timeout to 30 in config.json and remove verbose from it.")
    assert result.status == "finished"
    assert json.loads((repo.root / "config.json").read_text()) == {"timeout": 30}
