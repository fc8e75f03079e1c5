"""A benchmark problem as a `solve` Task, built from what a strategy may see only.

HumanEval: the entry point's def line, its docstring, the docstring's doctest examples,
and the prompt's code before it (imports, helpers) as context. MBPP: the description as
the docstring, the visible first test as the example, a signature with the name and arity
of the call in that test, and the test imports as context (the example needs them).
"""

from __future__ import annotations

import ast
import doctest

from codeloop.bench.datasets import PublicProblem
from codeloop.solve.tasks import Task


def doctest_examples(docstring: str) -> str:
    """`>>> call` lines with their expected output, as the Task's examples format takes them."""
    try:
        examples = doctest.DocTestParser().get_examples(docstring)
    except ValueError:  # inconsistent indentation in a docstring: no examples then
        return ""
    lines = []
    for example in examples:
        source = example.source.rstrip("\n").splitlines()
        lines.append(">>> " + source[0])
        lines += ["... " + more for more in source[1:]]
        lines += [w for w in example.want.rstrip("\n").splitlines()]
    return "\n".join(lines)


def _humaneval_task(problem: PublicProblem) -> Task:
    task = Task.from_prompt(problem.task_id, problem.prompt, problem.entry_point)
    return task.model_copy(update={"examples": doctest_examples(task.docstring)})


def mbpp_signature(example: str, entry_point: str) -> str:
    """`def name(a, b):` with as many parameters as the example's call passes."""
    call = next((n for n in ast.walk(ast.parse(example)) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Name) and n.func.id == entry_point), None)
    if call is None:
        raise ValueError(f"the example does not call {entry_point}: {example}")
    names = [chr(ord("a") + i) if i < 26 else f"arg{i}" for i in range(len(call.args))]
    names += [k.arg for k in call.keywords if k.arg]
    return f"def {entry_point}({', '.join(names)}):"


def example_expression(example: str) -> str:
    """The assert's expression; a bare truth call (`math.isclose(...)`) becomes
    `... == True`, the comparison form the Task's examples take."""
    example = example.strip()
    expression = example[len("assert "):].strip() if example.startswith("assert ") else example
    node = ast.parse(expression, mode="eval").body
    if isinstance(node, (ast.Compare, ast.BoolOp)) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return expression
    return f"{expression} == True"


def evalplus_text(problem: PublicProblem) -> str:
    """The task as EvalPlus shows it. HumanEval: the prompt as given. MBPP: the description
    and the visible test inside a docstring."""
    if problem.dataset == "mbpp":
        return f'"""\n{problem.prompt.strip()}\n{problem.example.strip()}\n"""'
    return problem.prompt.strip()


def _mbpp_task(problem: PublicProblem) -> Task:
    example = problem.example.strip()
    expression = example_expression(example)
    # The source is EvalPlus' text, so the pipeline's draft is the one-shot call; the
    # signature's parameter names are made up (a, b, ...), so review checks only the count.
    return Task(task_id=problem.task_id, signature=mbpp_signature(example, problem.entry_point),
                docstring=problem.prompt.strip(), examples=expression,
                context="\n".join(problem.test_imports), source=evalplus_text(problem),
                parameter_names=False)


def task_for(problem: PublicProblem) -> Task:
    if problem.dataset == "mbpp":
        return _mbpp_task(problem)
    return _humaneval_task(problem)
