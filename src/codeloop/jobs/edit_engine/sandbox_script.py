"""A Python script and its JSON argument as one shell command, for the sandbox's shell tool.

Both travel base64-encoded, so nothing in them needs quoting; the script sees
`sys.argv == [name, json_text]`. Used by the checks that run the model's code in the sandbox
(docstring_checks.py, failure_trace.py)."""

from __future__ import annotations

import base64
import json
from typing import Any


def python_command(name: str, script: str, argument: Any) -> str:
    """`python -c ...` that runs `script` with argv [name, json.dumps(argument)]."""
    code = base64.b64encode(script.encode()).decode()
    payload = base64.b64encode(json.dumps(argument).encode()).decode()
    return (f"python -c \"import base64,sys;sys.argv=['{name}',base64.b64decode('{payload}')"
            f".decode()];exec(base64.b64decode('{code}').decode())\"")
