"""A JSON file a reply rewrote without keys the request does not name gets them back
(jobs/json_keys.py)."""

from __future__ import annotations

import json

from codeloop.jobs.json_keys import restore_dropped_keys

OLD = '{\n  "base_url": "https://api.example.com",\n  "timeout": 10,\n  "verbose": false\n}\n'
NEW = '{\n  "base_url": "https://api.example.com",\n  "timeout": 30,\n  "max_retries": 5\n}\n'


def test_a_key_the_request_does_not_name_comes_back_with_its_value():
    text, back = restore_dropped_keys(OLD, NEW, 'Set the timeout to 30 and add "max_retries": 5.')
    assert back == ["verbose"]
    assert json.loads(text) == {"base_url": "https://api.example.com", "timeout": 30,
                                "verbose": False, "max_retries": 5}
    assert text.startswith('{\n  "base_url"') and text.endswith("}\n")  # the file's style


def test_a_key_the_request_names_may_go():
    text, back = restore_dropped_keys(OLD, NEW, "Remove verbose and set the timeout to 30.")
    assert (text, back) == (NEW, [])


def test_nested_objects_are_restored_and_the_new_values_kept():
    old = '{"db": {"host": "h", "port": 5432}, "debug": true}'
    new = '{\n    "db": {"host": "db.local"},\n    "debug": false\n}'
    text, back = restore_dropped_keys(old, new, "Point the db at db.local, debug off.")
    assert back == ["port"]
    assert json.loads(text) == {"db": {"host": "db.local", "port": 5432}, "debug": False}
    assert text.startswith('{\n    "db"')  # four spaces, as the reply wrote it


def test_nothing_lost_or_not_objects_leaves_the_reply_as_it_is():
    assert restore_dropped_keys(OLD, OLD.replace("10", "30"), "x") == (OLD.replace("10", "30"), [])
    assert restore_dropped_keys("[1, 2]", "[1]", "x") == ("[1]", [])
    assert restore_dropped_keys('{"a": 1}', "[1]", "x") == ("[1]", [])
    assert restore_dropped_keys("not json", '{"a": 1}', "x") == ('{"a": 1}', [])


def test_a_key_named_only_as_part_of_a_word_is_not_named():
    _, back = restore_dropped_keys('{"port": 1, "x": 2}', '{"x": 2}', "Change the airport code.")
    assert back == ["port"]
