"""pydantic 1's spellings that pydantic 2 refuses at import are rewritten before a write
(library_mends.py); each case imports for real: raising before, importing after."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from build_replies import file_reply, no_wiring, reply_with_tests, tasks

from codeloop.build.library_mends import pydantic2_mended


def _runs(source: str) -> dict:
    """The module's names once imported from a file (pydantic resolves the annotations in
    the module)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mended_models.py"
        path.write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("mended_models", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pydantic 2 warns of the old API it takes
                spec.loader.exec_module(module)
        finally:
            del sys.modules[spec.name]
    return module.__dict__


REGEX = '''from pydantic import BaseModel, Field, constr


class Slug(BaseModel):
    slug: str = Field(..., regex=r"^[a-z-]+$", max_length=20)
    code: constr(regex="^[A-Z]{3}$")
'''

ROOT = '''from pydantic import BaseModel, root_validator


class Span(BaseModel):
    start: int
    end: int

    @root_validator
    def ordered(cls, values):
        if values["start"] > values["end"]:
            raise ValueError("start after end")
        return values
'''

MODE = '''"""Bookmarks."""
from pydantic import BaseModel, validator


class Bookmark(BaseModel):
    url: str

    @validator("url", mode="before")
    def lower(cls, value):
        return value.strip().lower()
'''


@pytest.mark.parametrize("source", [REGEX, ROOT, MODE], ids=["regex", "root", "mode"])
def test_the_pydantic_1_spelling_raises_at_import_and_the_mended_one_does_not(source):
    with pytest.raises(Exception):  # noqa: B017 (PydanticUserError or TypeError)
        _runs(source)
    mended, notes = pydantic2_mended("app/models.py", source)
    assert notes and all(n.startswith("app/models.py: pydantic 2 is installed: ") for n in notes)
    _runs(mended)


def test_the_mended_rules_still_hold():
    pattern = _runs(pydantic2_mended("app/models.py", REGEX)[0])
    pattern["Slug"](slug="a-b", code="ABC")
    with pytest.raises(Exception, match="pattern"):
        pattern["Slug"](slug="A B", code="ABC")
    span = _runs(pydantic2_mended("app/models.py", ROOT)[0])["Span"]
    with pytest.raises(Exception, match="start after end"):
        span(start=3, end=1)
    bookmark = _runs(pydantic2_mended("app/models.py", MODE)[0])["Bookmark"]
    assert bookmark(url="  HTTP://X ").url == "http://x"


def test_the_import_is_added_once_and_the_rest_of_the_file_is_kept():
    mended, notes = pydantic2_mended("app/models.py", MODE)
    assert mended.count("from pydantic import field_validator\n") == 1
    assert '@field_validator("url", mode="before")' in mended or \
        "@field_validator('url', mode='before')" in mended
    assert mended.startswith('"""Bookmarks."""\n')
    assert "return value.strip().lower()" in mended
    assert notes == [("app/models.py: pydantic 2 is installed: `@validator(..., mode=...)` "
                      "became `@field_validator(..., mode=...)` (line 8)")]


def test_what_pydantic_2_takes_is_left_as_it_is():
    takes = ('from pydantic import BaseModel, root_validator, validator\n\n\n'
             'class A(BaseModel):\n    x: int\n\n    @validator("x", pre=True)\n'
             '    def v(cls, value):\n        return value\n\n'
             '    @root_validator(pre=True)\n    def r(cls, values):\n        return values\n')
    assert pydantic2_mended("app/models.py", takes) == (takes, [])
    not_pydantic = 'import re\n\nre.compile("x", regex=1) if False else None\n' \
                   'def Field(**kw):\n    return kw\nFIELD = Field(regex="a")\n'
    assert pydantic2_mended("app/x.py", not_pydantic) == (not_pydantic, [])
    assert pydantic2_mended("app/x.py", "from pydantic import (\n") == \
        ("from pydantic import (\n", [])
    assert pydantic2_mended("README.md", REGEX) == (REGEX, [])


def test_non_ascii_text_before_the_keyword_is_cut_by_bytes():
    source = 'from pydantic import BaseModel, Field\n\n\nclass A(BaseModel):\n' \
             '    name: str = Field("é", regex="^é+$")\n'
    mended, _ = pydantic2_mended("app/models.py", source)
    assert 'Field("é", pattern="^é+$")' in mended
    _runs(mended)["A"](name="éé")


def test_a_tasks_pydantic_1_model_is_mended_on_its_way_to_main(build):
    """Through a scripted build on python-api: the model's module would raise at import; the
    harness writes pydantic 2's spelling, the task's tests pass, main holds the mended file
    and the progress says what the harness changed."""
    tests = ("import pytest\nfrom app.a import A\n\n\ndef test_a():\n"
             "    assert A(code='ABC').code == 'ABC'\n"
             "    with pytest.raises(ValueError):\n        A(code='abc')\n")
    code = ("from pydantic import BaseModel, Field\n\n\nclass A(BaseModel):\n"
            "    code: str = Field(..., regex='^[A-Z]{3}$')\n")
    agents = {"task:A": [reply_with_tests(tests), file_reply(("app/a.py", code))],
              "integration": no_wiring()}
    built = build(tasks(("A",)), agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert "pattern='^[A-Z]{3}$'" in (built.out / "app" / "a.py").read_text()
    said = [getattr(e, "message", "") for e in built.events]
    assert any("`Field(regex=...)` became `pattern=`" in m for m in said), said
