"""A run directory: run.json (what was run), results.jsonl (one record per problem,
append-only and flushed per problem, so Ctrl-C or a kill loses at most the problem in
flight), summary.json and summary.md (written from the records)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from codeloop import user_files
from codeloop.jobs.usage import UsageRecord

RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"
INFRA_ERROR = "infra_error"  # a unit the infrastructure lost: no answer, not a wrong one


class RunDirError(Exception):
    """The output directory cannot be used as asked (exists, mismatched, unreadable)."""


class ProblemRecord(BaseModel):
    task_id: str
    passed: bool
    outcome: str
    reason: str
    program: str = ""
    reply: str = ""
    note: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_seconds: float = 0.0
    seconds: float = 0.0  # wall time the strategy took on this problem
    score_seconds: float = 0.0
    stages: dict[str, UsageRecord] = Field(default_factory=dict)  # per pipeline stage
    extra: dict[str, Any] = Field(default_factory=dict)


class ResultsLog:
    """Appends records to results.jsonl, one flushed and fsynced line per problem."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        # A line cut by a kill has no newline: end it, so the next record starts clean.
        if path.is_file() and path.stat().st_size:
            with path.open("rb") as fh:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    with path.open("ab") as out:
                        out.write(b"\n")

    def append(self, record: ProblemRecord) -> None:
        line = record.model_dump_json() + "\n"
        try:
            with self._lock, self.path.open("a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise RunDirError(f"cannot append to {self.path} ({exc.strerror or exc}); "
                              "free space or fix permissions, then --resume") from exc


def read_records(path: Path) -> tuple[dict[str, ProblemRecord], int]:
    """Records by task id (a later line for the same task wins) and the number of
    unreadable lines skipped (a line cut by a kill); those problems simply run again."""
    records: dict[str, ProblemRecord] = {}
    skipped = 0
    if not path.is_file():
        return records, 0
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RunDirError(f"cannot read {path}: {exc.strerror or exc}") from exc
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = ProblemRecord.model_validate_json(line)
        except ValidationError:
            skipped += 1
            continue
        records[record.task_id] = record
    return records, skipped


def write_json(path: Path, data: Any) -> None:
    """Write via a temp file and rename, so a reader never sees half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def read_json(path: Path) -> dict[str, Any]:
    data = user_files.read_json(path, RunDirError)
    if not isinstance(data, dict):
        raise RunDirError(f"{path}: expected a JSON object")
    return data
