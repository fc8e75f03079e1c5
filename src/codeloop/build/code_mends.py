"""The harness's mends of a task's Python module before it is written, in order, each from a
mistake the 1.5B kept making (see each module): imports pointed at their homes and a
module's import of itself dropped (import_homes.py), a promised exception class defined
(undefined_exceptions.py), a store made per request shared (shared_store.py), a router
prefix repeated in its routes removed (router_prefix.py), a pydantic model built without the
required field the next line sets built with it (construct_then_set.py), a field set on an
input model that lacks it built as the output model (set_on_input.py), a top-level call
placed above the names it uses moved below them (late_statements.py), a promised function
written as a method that never uses its instance given at module level
(lifted_functions.py), a store's methods called on its module given one store
(module_store.py)."""

from __future__ import annotations

from codeloop.build.construct_then_set import constructed_with_fields
from codeloop.build.contract import TaskContract, is_test_module
from codeloop.build.import_homes import Read, mended_imports
from codeloop.build.late_statements import with_late_calls_moved
from codeloop.build.lifted_functions import with_promised_functions
from codeloop.build.module_store import module_used_as_store
from codeloop.build.router_prefix import without_repeated_prefix
from codeloop.build.set_on_input import built_from_input
from codeloop.build.shared_store import shared_store
from codeloop.build.undefined_exceptions import defined_exceptions


def mended_code(path: str, text: str, contract: TaskContract,
                read: Read) -> tuple[str, list[str]]:
    """(`text`, the task's module at `path`, mended; one note per mend); a test module or a
    file that is not Python is left as it is."""
    if not path.endswith(".py") or is_test_module(path):
        return text, []
    text, moved = mended_imports(text, contract, read, path)
    notes = [f"{path}: {note}" for note in moved]
    text, defined = defined_exceptions(path, text, contract.names)
    text, shared = shared_store(path, text, contract.src_dir.replace("/", "."),
                                set(contract.models))
    text, one_store = module_used_as_store(path, text, contract.src_dir.replace("/", "."),
                                           read)
    shared += one_store
    text, unprefixed = without_repeated_prefix(path, text)
    text, completed = constructed_with_fields(path, text, set(contract.models), read)
    text, built = built_from_input(path, text, set(contract.models), read)
    text, moved_down = with_late_calls_moved(path, text)
    text, lifted = with_promised_functions(path, text, contract.names)
    return (text, notes + defined + shared + unprefixed + completed + built + moved_down
            + lifted)
