"""go-api with the real `go test` in the sandbox (no network, the standard library only): a
scripted task writes a package and its test; the integration agent registers its route."""

from __future__ import annotations

import os
import shutil

import pytest
from build_replies import search_replace, task_script

from codeloop.build.repo import merged_tasks

# Skipped on a developer's machine without go; in CI (env CI set) a missing go fails.
pytestmark = pytest.mark.skipif(shutil.which("go") is None and not os.environ.get("CI"),
                                reason="needs the go toolchain")

TEST = """package total

import "testing"

func TestSum(t *testing.T) {
\tif Sum([]int{2, 3}) != 5 || Sum(nil) != 0 {
\t\tt.Fatal("wrong sum")
\t}
}
"""
CODE = """package total

// Sum adds the numbers.
func Sum(numbers []int) int {
\ttotal := 0
\tfor _, n := range numbers {
\t\ttotal += n
\t}
\treturn total
}
"""


def test_a_go_api_built_with_real_go_test(build):
    request = {"tech_stack": "go-api", "tasks": [
        {"id": "T1", "description": "a Sum function", "keywords": ["total"]}]}
    integration = [search_replace(
        "internal/server/server.go", 'import (\n\t"encoding/json"\n\t"net/http"\n)',
        'import (\n\t"encoding/json"\n\t"net/http"\n\n\t"project/internal/total"\n)\n\n'
        'var _ = total.Sum')]
    agents = {"task:T1": task_script("internal/total/total_test.go", TEST,
                                     "internal/total/total.go", CODE),
              "integration": integration}
    built = build(request, agents)

    assert built.final["status"] == "COMPLETE", built.final
    assert merged_tasks(built.out) == ["T1"]
    results = [e for e in built.events if e.type == "test_result"]
    assert (results[-1].passed, results[-1].failed) == (2, 0)  # TestHealth, TestSum
    assert '"project/internal/total"' in (built.out / "internal/server/server.go").read_text()
