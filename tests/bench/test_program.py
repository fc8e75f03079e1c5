from codeloop.bench.program import build_program, prompt_preamble


def fenced(code: str) -> str:
    return f"Here is the solution:\n```python\n{code}\n```\nIt works."


def test_preamble_is_the_prompt_code_before_the_entry_point(humaneval):
    preamble = prompt_preamble(humaneval["HumanEval/32"].prompt, "find_zero")
    assert preamble.startswith("import math")
    assert "def poly(" in preamble and "def find_zero" not in preamble
    assert prompt_preamble(humaneval["HumanEval/0"].prompt, "has_close_elements") == \
        "from typing import List"


def test_helpers_from_the_prompt_come_before_the_solution(humaneval):
    public = humaneval["HumanEval/32"].public()
    program = build_program(public, fenced("def find_zero(xs: list):\n    return poly(xs, 0)"))
    assert program.code.index("def poly(") < program.code.index("def find_zero(")
    assert program.note == ""


def test_demo_code_after_the_solution_is_dropped(humaneval):
    public = humaneval["HumanEval/0"].public()
    reply = fenced("def has_close_elements(numbers, threshold):\n    return False\n\n"
                   "print(has_close_elements([1.0], 0.5))\nassert has_close_elements([], 1) == 3\n"
                   "x = input()\n")
    code = build_program(public, reply).code
    assert "def has_close_elements" in code
    assert "print(" not in code and "assert " not in code


def test_the_block_that_defines_the_entry_point_wins(humaneval):
    public = humaneval["HumanEval/0"].public()
    reply = ("```python\nimport os\nprint('setup')\n```\n"
             "```python\ndef has_close_elements(numbers, threshold):\n    return True\n```\n"
             "```bash\npython solution.py\n```")
    code = build_program(public, reply).code
    assert "return True" in code and "python solution.py" not in code


def test_a_bare_body_is_read_as_a_completion(humaneval):
    public = humaneval["HumanEval/0"].public()
    program = build_program(public, "    return len(numbers) > 1\n")
    assert program.note == "reply read as a completion"
    assert "return len(numbers) > 1" in program.code
    assert program.code.count("def has_close_elements") == 1


def test_no_code_gives_an_empty_program_with_a_reason(humaneval, mbpp):
    assert build_program(humaneval["HumanEval/0"].public(), "I cannot help.").code == ""
    empty = build_program(mbpp["Mbpp/82"].public(), "")
    assert empty.code == "" and empty.note == "empty reply"
    other = build_program(mbpp["Mbpp/82"].public(), fenced("def area(r):\n    return r"))
    assert other.code == "" and "volume_sphere" in other.note


def test_mbpp_program_has_no_preamble(mbpp):
    program = build_program(mbpp["Mbpp/82"].public(),
                            fenced("import math\ndef volume_sphere(r):\n    return 4/3*math.pi*r**3"))
    assert program.code.startswith("import math")
    assert "Write a function" not in program.code
