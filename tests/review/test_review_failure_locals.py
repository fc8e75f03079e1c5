"""The refiner's next round sees the values where the change raised (pytest's --showlocals,
the raising frame's locals after its `E` line): the 1.5B's pbkdf2_hmac fix for md5_password
raised "a bytes-like object is required, not 'str'" on a line that encodes the password, and
its three rounds looked at the password; the salt was the str. On the scripted model, with
the real sandbox and pytest."""

from __future__ import annotations

from review_helpers import approve

from codeloop.llm.scripted import ScriptedLLM
from codeloop.review.checks import failure_lines
from codeloop.review.service import ReviewRequest, start_review

HASHED = ('import hashlib\n\n\ndef hash_password(password):\n'
          '    return hashlib.md5(password.encode()).hexdigest()\n')
STR_SALT = ('import hashlib\nimport secrets\n\n\ndef hash_password(password):\n'
            '    salt = secrets.token_hex(4)\n'
            '    return salt + hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 10).hex()\n')
BYTES_SALT = STR_SALT.replace("salt, 10)", "salt.encode(), 10)")
TEST = ('from passwords import hash_password\n\n\ndef test_hash_is_text():\n'
        '    assert isinstance(hash_password("x"), str)\n')
REQUEST = "Use hashlib.pbkdf2_hmac with a random salt in passwords.py."


def test_the_next_round_sees_the_locals_of_the_frame_that_raised(tmp_path, store):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "passwords.py").write_text(HASHED)
    (ws / "test_passwords.py").write_text(TEST)
    llm = ScriptedLLM([
        {"match": "Before anyone changes the code", "reply": "no test"},
        {"match": "Reply with every file",
         "reply": f"FILE: passwords.py\n```python\n{STR_SALT}```", "times": 1},
        {"match": "Reply with every file",
         "reply": f"FILE: passwords.py\n```python\n{BYTES_SALT}```"},
        approve(), approve(), approve()])
    out = start_review(ReviewRequest(workspace=ws, files=["passwords.py"], request=REQUEST),
                       llm, store, None)

    assert out.status == "awaiting_approval", (out.message, out.error_log, out.refinements)
    rounds = [call[-1].content for call in llm.calls if call[-1].content.startswith(REQUEST)]
    second = rounds[1]
    assert "E       TypeError: a bytes-like object is required, not 'str'" in second, second
    assert "salt       = '" in second  # the str, by name and value
    assert "password   = 'x'" in second


def test_only_the_locals_after_an_error_line_are_kept():
    output = ("    def test_a():\n>       stored = f('x')\n\ntest_a.py:3: \n"
              "_ _ _ _\n\npassword = 'x'\n\n    def f(password):\n"
              ">       return g(password, salt)\nE       TypeError: not 'str'\n\n"
              "password   = 'x'\nsalt       = '" + "ab" * 200 + "'\n\na.py:4: TypeError\n"
              "FAILED test_a.py::test_a - TypeError\n")
    lines = failure_lines(output).splitlines()
    assert lines[:5] == [">       stored = f('x')", "test_a.py:3:",
                         ">       return g(password, salt)", "E       TypeError: not 'str'",
                         "password   = 'x'"]
    assert lines[5].startswith("salt       = 'abab") and len(lines[5]) == 160
    assert lines[6:] == ["a.py:4: TypeError"]
