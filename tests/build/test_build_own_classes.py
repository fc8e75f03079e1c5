"""A task's code imports the classes an earlier task built instead of defining them again
(the 1.5B's T2 on the todo graph re-defined T1's TodoIn and Todo in app/storage.py, and kept
doing so when the write was refused): the harness puts the import in place of the copy. Real
build: git, sandbox, pytest, scripted task agents."""

from __future__ import annotations

from build_replies import file_reply, no_wiring, reply_with_tests, task_script, tasks

ITEM = "class Item:\n    def __init__(self, name):\n        self.name = name\n"
TEST_A = "from app.a import Item\n\n\ndef test_item():\n    assert Item('x').name == 'x'\n"
TEST_B = "from app.b import b\n\n\ndef test_b():\n    assert b().name == 'x'\n"
COPY = ITEM + "\n\ndef b():\n    return Item('x')\n"
IMPORT = "from app.a import Item\n\n\ndef b():\n    return Item('x')\n"


def test_a_class_an_earlier_task_built_is_imported_not_defined_again(build):
    broken_b = "from app.a import Item\n\n\ndef b():\n    return Item('y')\n"
    agents = {"task:A": task_script("tests/test_a.py", TEST_A, "app/a.py", ITEM),
              "task:B": [reply_with_tests(TEST_B), file_reply(("app/b.py", COPY.replace(
                  "Item('x')", "Item('y')"))), file_reply(("app/b.py", IMPORT))],
              "integration": no_wiring()}
    built = build(tasks(("A",), ("B", "A")), agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert (built.out / "app" / "b.py").read_text() == IMPORT
    # the copy was replaced by the import before the write, and the next round was told
    retry = built.llm_for("task:B").calls[2][-1].content
    assert ("app/b.py: class Item is defined in app.a on main; the harness replaced your copy "
            "with `from app.a import Item`: use that class as it is") in retry
    assert f"```python\n{broken_b}```" in retry  # the file shown is the one on disk


def test_a_class_in_the_tasks_own_module_or_a_test_is_not_refused():
    from codeloop.build.contract import TaskContract
    from codeloop.build.own_classes import redefined_classes

    contract = TaskContract(
        task_id="B", language="python", src_dir="app", test_path="tests/test_b.py",
        modules=["app/b.py"], modules_named=True, names=["b"], endpoints=[],
        serves_http=False, served=[],
        built={"app/a.py": ["Item"], "app/b.py": ["Old"], "tests/test_a.py": ["Box"]},
        built_by={"app/a.py": "A", "app/b.py": "scaffold", "tests/test_a.py": "A"})
    assert redefined_classes("app/b.py", "class Old:\n    pass\n\n\nclass Box:\n"
                             "    pass\n", contract) == []
    assert redefined_classes("tests/test_b.py", ITEM, contract) == []
    assert redefined_classes("app/a.py", ITEM, contract) == []  # its own module, rewritten
    assert len(redefined_classes("app/b.py", ITEM, contract)) == 1
    assert redefined_classes("app/b.py", "class Item(:\n", contract) == []  # tests report it


def test_the_harness_puts_the_import_where_the_copy_was_and_keeps_the_rest():
    from codeloop.build.contract import TaskContract
    from codeloop.build.own_classes import import_instead

    contract = TaskContract(
        task_id="B", language="python", src_dir="app", test_path="tests/test_b.py",
        modules=["app/b.py"], modules_named=True, names=["b"], endpoints=[],
        serves_http=False, served=[], built={"app/a.py": ["Item", "Box"]},
        built_by={"app/a.py": "A"})
    text = ('"""B."""\nimport json\n\n\n@dataclass\nclass Item:\n    name: str\n\n\n'
            "class Own:\n    pass\n\n\nclass Box:\n    pass\n\n\n"
            "def b():\n    return json.dumps(Item('x').name)\n")
    out, notes = import_instead("app/b.py", text, contract)
    assert out == ('"""B."""\nimport json\nfrom app.a import Item, Box\n\n\n'
                   "class Own:\n    pass\n\n\ndef b():\n"
                   "    return json.dumps(Item('x').name)\n")
    assert [n.split(";")[0] for n in notes] == ["app/b.py: class Item is defined in app.a on main",
                                                "app/b.py: class Box is defined in app.a on main"]
    for unchanged in (("tests/test_b.py", text), ("app/b.py", "class Own:\n    pass\n"),
                      ("app/b.py", "class Item(:\n")):
        assert import_instead(*unchanged, contract) == (unchanged[1], [])
