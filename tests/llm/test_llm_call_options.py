"""The protocol's keyword options are declared once (base.CompleteOptions, JsonOptions) and
every backend takes exactly those: a stop marker and a seed reach the request, an option a
call does not take is a TypeError, as a misspelt keyword argument always was."""

import pytest

from codeloop.llm.base import Reply, user
from codeloop.llm.scripted import ScriptedLLM


def test_options_reach_the_request():
    llm = ScriptedLLM(["keep this STOP drop this", "a b STOP c"])
    assert llm.complete([user("q")], max_tokens=8, temperature=0.0, stop=["STOP"],
                        seed=3).text == "keep this "
    *pieces, final = llm.stream([user("q")], stop=["STOP"])
    assert "".join(pieces) == "a b " and isinstance(final, Reply)


@pytest.mark.parametrize(("call", "kwargs", "named"), [
    ("complete", {"schema": {"type": "object"}}, "schema"),
    ("complete", {"max_token": 5}, "max_token"),
    ("stream", {"stream": False}, "stream"),
    ("complete_json", {"stop": ["x"]}, "stop"),
])
def test_an_option_the_call_does_not_take_is_refused(call, kwargs, named):
    llm = ScriptedLLM(['{"n": 1}'])
    args = ([user("q")], {"type": "object"}) if call == "complete_json" else ([user("q")],)
    with pytest.raises(TypeError, match=f"unexpected keyword argument.*{named}"):
        result = getattr(llm, call)(*args, **kwargs)
        list(result) if call == "stream" else None
    assert llm.remaining == 1  # refused before any reply was used
