"""The code prompt tells what main's other modules offer by signature (module_api.py): the
1.5B, told only that app.storage holds `TodoStore`, called `store.create` and `store.list`
(it has add, get, all, delete) and every route answered 500."""

from __future__ import annotations

from build_replies import file_reply, func_task, no_wiring, reply_with_tests, tasks

from codeloop.build.module_api import module_api

STORE = '''"""Storage."""
from typing import List, Optional

from app.models import Todo, TodoIn


class TodoStore:
    def __init__(self):
        self.todos = {}

    def add(self, todo_in: TodoIn) -> Todo:
        ...

    def get(self, todo_id: int) -> Optional[Todo]:
        ...

    def all(self) -> List[Todo]:
        ...

    def _next_id(self):
        ...


def make_store(size=10, *, strict=False) -> TodoStore:
    return TodoStore()


store = TodoStore()
_cache = dict()
'''
MODELS = ("from pydantic import BaseModel, Field\n\n\nclass TodoIn(BaseModel):\n"
          "    title: str = Field(min_length=1)\n    done: bool = False\n\n\n"
          "class Todo(TodoIn):\n    id: int\n")


def test_classes_fields_methods_functions_and_instances_by_signature():
    assert module_api(STORE) == [
        ("class TodoStore: add(todo_in: TodoIn) -> Todo; get(todo_id: int) -> "
         "Optional[Todo]; all() -> List[Todo]"),
        "def make_store(size=10, *, strict=False) -> TodoStore",
        "store = TodoStore()",
    ]
    assert module_api(MODELS) == [
        "class TodoIn(BaseModel): title: str = Field(min_length=1); done: bool = False",
        "class Todo(TodoIn): id: int",
    ]


def test_a_constructor_with_arguments_and_a_static_method_keep_their_arguments():
    text = ("class Shelf:\n    def __init__(self, size: int, name='s'):\n        pass\n\n"
            "    @staticmethod\n    def parse(text, strict=True):\n        pass\n\n"
            "    def put(self, item=None):\n        pass\n")
    assert module_api(text) == [
        "class Shelf: __init__(size: int, name='s'); parse(text, strict=True); put(item=None)"]


def test_a_module_that_does_not_parse_offers_nothing_and_a_long_line_is_cut():
    assert module_api("def broken(:\n") == []
    many = "class Big:\n" + "".join(f"    def method_{n}(self, value):\n        pass\n"
                                    for n in range(40))
    (line,) = module_api(many)
    assert len(line) == 300 and line.endswith("...")


def test_the_code_prompt_names_the_methods_of_an_earlier_tasks_class(build):
    store = ("class Shelf:\n    def __init__(self):\n        self.items = []\n\n"
             "    def put(self, item: str) -> int:\n        self.items.append(item)\n"
             "        return len(self.items)\n")
    b_test = ("from app.b import b\n\n\ndef test_b():\n    assert b() == 1\n")
    b_code = ("from app.a import Shelf\n\n\ndef b():\n    return Shelf().put('x')\n")
    agents = {"task:A": [reply_with_tests("from app.a import Shelf\n\n\ndef test_a():\n"
                                          "    assert Shelf().put('x') == 1\n"),
                         file_reply(("app/a.py", store))],
              "task:B": [reply_with_tests(b_test), file_reply(("app/b.py", b_code))],
              "integration": no_wiring()}
    built = build(tasks(("A",), ("B", "A")), agents)

    assert built.final["status"] == "COMPLETE", built.final
    code_prompt = built.llm_for("task:B").calls[1][-1].content
    assert "- app.a:\n    class Shelf: put(item: str) -> int" in code_prompt, code_prompt


def test_the_scaffolds_entry_point_is_listed_by_its_app_and_routes(build):
    """A task that serves no HTTP is not shown app/main.py; it is told what it holds."""
    agents = {"task:A": func_task("a", "1"), "integration": no_wiring()}
    built = build(tasks(("A",)), agents)
    prompt = built.llm_for("task:A").calls[1][-1].content
    assert "- app.main:\n    app = FastAPI(title='project')\n    def health() -> dict" in prompt
