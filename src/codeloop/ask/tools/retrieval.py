"""Retrieval for questions: BM25 (the `bm25s` library) over function- and class-sized chunks,
each with its file and line span, so an answer can cite `file:line` that exists.

Chunks: in Python, each top-level function, each class (a long class is cut into its
methods, plus its header), and the module's own lines (docstring, imports, constants); other
text files in windows of WINDOW lines. Tokens: identifiers split at `_` and camelCase,
lower-cased, lightly stemmed (replies/reply, parsed/parse), with the chunk's file path and
symbol name added so "which file defines X" finds X's definition.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from codeloop.ask.tools.sources import is_source, is_test
from codeloop.ask.tools.walk import RepoIndex

WINDOW = 40
LONG_CLASS = 80  # lines: a longer class is indexed method by method
MAX_CHUNK_LINES = 120
SUMMARY_CHARS = 160
TEST_WEIGHT = 0.6
NAMED_BONUS = 10.0
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = frozenset(["a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "in", "is", "it", "its", "of", "on", "or", "the", "this", "that", "to", "was", "what", "when", "where", "which", "who", "why", "will", "with", "into", "file", "files", "code", "function", "functions", "class", "classes", "module", "modules", "return", "returns", "repository", "repo", "project", "self", "none", "true", "false", "def", "import"])
_TEXT_SUFFIXES = (".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json")


def stem(word: str) -> str:
    if len(word) > 4:
        if word.endswith("ies"):
            return word[:-3] + "y"
        for suffix in ("ing", "ed", "es", "s", "e"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    out = []
    for word in _WORD.findall(text):
        for piece in _CAMEL.findall(word):
            piece = piece.lower()
            if len(piece) > 1 and piece not in _STOP:
                out.append(stem(piece))
    return out


def chunk_repository(index: RepoIndex, sources: list[str]) -> list[dict[str, Any]]:
    """[{path, start, end, name, kind, text}] for the given files (1-based, inclusive)."""
    chunks: list[dict[str, Any]] = []
    for rel in sources:
        text = index.text(rel)
        if rel.endswith(".py"):
            try:
                summary = _docstring_head(text)
                chunks += [{**c, "summary": summary} for c in _python_chunks(rel, text)]
                continue
            except (SyntaxError, ValueError, RecursionError):
                pass  # not valid Python: windows, like any text
        chunks += _windows(rel, text)
    return chunks


def _docstring_head(text: str) -> str:
    """The first sentence or so of a module's docstring: what every chunk of it is about."""
    match = re.match(r'\s*(?:#[^\n]*\n\s*)*[rRuU]?("""|\'\'\')(.*?)(\1|$)', text, re.DOTALL)
    return match.group(2)[:SUMMARY_CHARS] if match else ""


def _chunk(rel: str, lines: list[str], start: int, end: int, name: str, kind: str
           ) -> dict[str, Any]:
    end = min(end, start + MAX_CHUNK_LINES - 1, len(lines))
    return {"path": rel, "start": start, "end": end, "name": name, "kind": kind,
            "text": "\n".join(lines[start - 1:end])}


def _python_chunks(rel: str, text: str) -> list[dict[str, Any]]:
    tree = ast.parse(text, rel)
    lines = text.splitlines()
    out: list[dict[str, Any]] = []
    covered: set[int] = set()
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        end = node.end_lineno or node.lineno
        covered.update(range(start, end + 1))
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        if kind == "class" and end - start + 1 > LONG_CLASS:
            methods = [n for n in node.body
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            first = min((min([m.lineno, *(d.lineno for d in m.decorator_list)])
                         for m in methods), default=end + 1)
            out.append(_chunk(rel, lines, start, max(start, first - 1), node.name, "class"))
            for m in methods:
                m_start = min([m.lineno, *(d.lineno for d in m.decorator_list)])
                out.append(_chunk(rel, lines, m_start, m.end_lineno or m.lineno,
                                  f"{node.name}.{m.name}", "method"))
        else:
            out.append(_chunk(rel, lines, start, end, node.name, kind))
    rest = [n for n in range(1, len(lines) + 1) if n not in covered and lines[n - 1].strip()]
    if rest:  # the module's own lines: docstring, imports, constants, the main guard
        out.append({"path": rel, "start": rest[0], "end": rest[-1], "name": "(module)",
                    "kind": "module", "text": "\n".join(lines[n - 1] for n in rest[:MAX_CHUNK_LINES])})
    return out


def _windows(rel: str, text: str) -> list[dict[str, Any]]:
    lines = text.splitlines()
    return [_chunk(rel, lines, start, start + WINDOW - 1, f"lines {start}-", "text")
            for start in range(1, len(lines) + 1, WINDOW)]


def retrieval_files(index: RepoIndex) -> list[str]:
    return [rel for rel in index.files if is_source(rel) or rel.endswith(_TEXT_SUFFIXES)]


class ChunkSearch:
    """A BM25 index over a repository's chunks; `search(question, k)` -> the top chunks."""

    def __init__(self, chunks: list[dict[str, Any]]) -> None:
        import bm25s

        self.chunks = chunks
        self._docs = [tokens(f"{c['path']} {c['name']} {c['name']} {c.get('summary', '')} "
                             f"{c['text']}") for c in chunks]
        self._vocab = {t for doc in self._docs for t in doc}
        self._bm25 = bm25s.BM25()
        if chunks:
            self._bm25.index(self._docs, show_progress=False)

    def search(self, question: str, k: int = 6) -> list[dict[str, Any]]:
        query = [t for t in tokens(question) if t in self._vocab]  # bm25s scores known words
        named = self._named(question)
        if not self.chunks or (not query and not named):
            return []
        if not query:
            return [{**_public(self.chunks[i]), "score": NAMED_BONUS} for i in named][:k]
        results, scores = self._bm25.retrieve([query], k=min(2 * k, len(self.chunks)),
                                              show_progress=False)
        out = []
        scored = {int(doc): float(score) for doc, score in zip(results[0], scores[0],
                                                                strict=True)}
        for i in named:  # the definition of a symbol the question names, whatever BM25 says
            scored[i] = scored.get(i, 0.0) + NAMED_BONUS
        out = []
        for i, score in scored.items():
            chunk = self.chunks[i]
            # Questions are about the code; a test that mentions the same words ranks lower.
            score *= TEST_WEIGHT if is_test(chunk["path"]) else 1.0
            if score > 0:
                out.append({**_public(chunk), "score": round(score, 3)})
        return sorted(out, key=lambda c: (-c["score"], c["path"], c["start"]))[:k]

    def _named(self, question: str) -> list[int]:
        """Chunks defining a symbol the question spells out (`PathGuard`, `approx_tokens`)."""
        words = set(_IDENT.findall(question))
        return [i for i, c in enumerate(self.chunks)
                if c["kind"] != "text" and ({c["name"], c["name"].split(".")[-1]} & words)]


def repository_search(index: RepoIndex) -> ChunkSearch:
    """The BM25 index over the repository's chunks, built once and kept in the index's memo."""
    if "bm25" not in index.memo:
        index.memo["bm25"] = ChunkSearch(chunk_repository(index, retrieval_files(index)))
    return index.memo["bm25"]


def _public(chunk: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in chunk.items() if k != "summary"}
