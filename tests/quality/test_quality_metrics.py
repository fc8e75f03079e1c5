import json

from codeloop.quality.grades import mi_grade
from codeloop.quality.metrics import QualityMetrics, compute_metrics

SIMPLE = "def add(a, b):\n    return a + b\n"

BRANCHY = '''
def classify(n, flag):
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    elif n < 10:
        return "small"
    elif n < 100:
        return "medium"
    for i in range(n):
        if i % 7 == 0 and flag:
            break
        while i > 3 or n > 5:
            i -= 1
    try:
        n = n // 2
    except ZeroDivisionError:
        n = 0
    return "large" if n > 1000 else "big"
'''

NESTED = '''
class Stack:
    def push(self, item):
        def check(value):
            return value is not None
        return check(item)


def outer(x):
    # a comment
    return x
'''


def test_simple_function_has_complexity_one():
    metrics = compute_metrics(SIMPLE)
    assert metrics.syntax_error is None
    assert [(f.name, f.lineno, f.complexity, f.grade) for f in metrics.functions] == [
        ("add", 1, 1, "Simple")]
    assert metrics.max_complexity == 1
    assert metrics.loc == 2 and metrics.lloc == 2


def test_branchy_function_is_complex():
    metrics = compute_metrics(BRANCHY)
    (classify,) = metrics.functions
    assert classify.name == "classify" and classify.lineno == 2
    assert classify.complexity > 10
    assert classify.grade == "Complex"
    assert metrics.max_complexity == classify.complexity


def test_halstead_is_non_zero_for_real_code():
    halstead = compute_metrics(BRANCHY).halstead
    assert halstead.volume > 0 and halstead.difficulty > 0 and halstead.effort > 0
    assert halstead.bugs > 0


def test_maintainability_index_and_grade_agree():
    metrics = compute_metrics(BRANCHY)
    assert 0 < metrics.maintainability_index <= 100
    assert metrics.mi_grade == mi_grade(metrics.maintainability_index)
    assert compute_metrics(SIMPLE).mi_grade == "Excellent"


def test_methods_and_closures_are_named_by_their_path():
    metrics = compute_metrics(NESTED)
    assert [(f.name, f.lineno) for f in metrics.functions] == [
        ("Stack.push", 3), ("Stack.push.check", 4), ("outer", 9)]
    assert metrics.comments == 1


def test_syntax_error_is_reported_with_its_line():
    metrics = compute_metrics("x = 1\ny = 2\ndef broken(:\n    pass\n")
    assert metrics.syntax_error == "line 3: invalid syntax"
    assert metrics.functions == [] and metrics.loc == 4
    assert metrics.summary() == "syntax error: line 3: invalid syntax"
    assert metrics.table_rows() == [("Syntax error", "line 3: invalid syntax")]


def test_compile_time_errors_count_as_syntax_errors():
    assert compute_metrics("x = 1\nreturn x\n").syntax_error == "line 2: 'return' outside function"
    assert compute_metrics("a = 1\nb = '\0'\n").syntax_error.startswith("line 2:")


def test_summary_and_rows_show_the_numbers():
    metrics = compute_metrics(BRANCHY)
    assert f"max complexity {metrics.max_complexity} (Complex)" in metrics.summary()
    rows = dict(metrics.table_rows())
    assert rows["  classify (line 2)"] == f"{metrics.max_complexity} (Complex)"
    assert rows["Maintainability index"].endswith(f"({metrics.mi_grade})")


def test_result_round_trips_through_json():
    metrics = compute_metrics(BRANCHY)
    restored = QualityMetrics.model_validate(json.loads(metrics.model_dump_json()))
    assert restored == metrics


def test_empty_code_has_no_functions():
    metrics = compute_metrics("")
    assert metrics.syntax_error is None
    assert metrics.functions == [] and metrics.max_complexity == 0 and metrics.loc == 0
