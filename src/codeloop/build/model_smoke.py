"""A task's pydantic models built by the harness, beside the model's tests: each from a value
of every field's type, read from the model's own JSON schema; none may fail with an error
other than pydantic's ValidationError (a value a validator refuses is the model's right).

Measured on the 1.5B (build benchmark, notes N2 at 59a3c48): `Note`'s slug validator
returned `cls.slugify(value)`, itself; N2's own tests built no Note with a slug and passed,
N2 merged, and every test of N3 (the store) failed to collect with a RecursionError, in both
attempts, with N4 blocked behind it. A model that cannot be built is found where it is
written. The values come from the sampler the routes contract uses
(project_files/codeloop_route_calls.py), written beside as a helper.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from codeloop.build.contract import TaskContract, module_of
from codeloop.build.contract_tests import helper_module, helper_path
from codeloop.build.route_smoke import route_calls_helper

SUFFIX = "_model_smoke"


def models_smoke_beside(contract: TaskContract) -> dict[str, str]:
    """{path: text} of the smoke test of the pydantic models the task builds (and the
    sampler it imports), for a Python task with one module ({} when it builds none)."""
    modules = [p for p in contract.modules if p.endswith(".py")]
    models = [n for n in contract.names if n in contract.models]
    if contract.language != "python" or len(modules) != 1 or not models:
        return {}
    module = module_of(modules[0])
    test = f'''"""The task's pydantic models, built by the harness from a value of every field's type
(read from each model's JSON schema): none may fail with an error other than pydantic's
ValidationError (a validator that calls itself, a method that is not there)."""

import pydantic
import pytest

import {module}
from {helper_module(contract)} import sample

MODELS = {models!r}


@pytest.mark.parametrize("name", MODELS)
def test_the_model_builds_from_values_of_its_fields_types(name):
    model = getattr({module}, name)
    if not (isinstance(model, type) and issubclass(model, pydantic.BaseModel)) \
            or model is pydantic.BaseModel:
        pytest.skip(f"{{name}} is no pydantic model")
    schema = model.model_json_schema()
    defs = schema.get("$defs", {{}})
    values = {{key: sample(field, defs, key)
              for key, field in schema.get("properties", {{}}).items()}}
    try:
        model(**values)
    except pydantic.ValidationError:
        pass
'''
    path = PurePosixPath(contract.test_path)
    return {helper_path(contract): route_calls_helper(),
            str(path.with_name(f"{path.stem}{SUFFIX}{path.suffix}")): test}


def is_models_smoke(path: str) -> bool:
    return PurePosixPath(path).stem.endswith(SUFFIX) and PurePosixPath(path).stem.startswith(
        "test_")
