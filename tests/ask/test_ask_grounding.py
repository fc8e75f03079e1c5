"""Grounding: citations that exist and hold what is quoted count; invented files, lines past
the end and quotes that are not there do not. And BM25 retrieval over chunks with spans."""

from __future__ import annotations

from codeloop.ask.grounding import check_grounding, find_citations
from codeloop.ask.tools.retrieval import ChunkSearch, chunk_repository, retrieval_files, tokens
from codeloop.ask.tools.walk import RepoIndex


def test_citations_are_parsed_with_ranges_and_quotes():
    text = ("`inventory_value` is defined at pyapp/report.py:6-8, `Item` at models.py:6.\n"
            "See also (pyapp/models.py:12) and `src/x.py`.\n"
            "pyapp/cli.py:11 defines `main`.")
    found = find_citations(text)
    assert [(c["path"], c["start"], c["end"], c["quotes"]) for c in found] == [
        ("pyapp/report.py", 6, 8, ["inventory_value"]),
        ("models.py", 6, 6, ["Item"]),  # each citation its own quotes
        ("pyapp/models.py", 12, 12, []),  # a quoted file name is not code to look for
        ("pyapp/cli.py", 11, 11, ["main"]),  # a quote after the citation
    ]


def test_grounding_counts_each_kind_of_citation(pyapp):
    index = RepoIndex.open(pyapp)
    answer = (
        "The value is summed by `inventory_value` (pyapp/report.py:6).\n"  # grounded
        "Items know their `total()` (models.py:12).\n"  # a bare name, unique: grounded
        "Loading happens in pyapp/storage.py:8.\n"  # exists, nothing quoted: grounded
        "It caches results with `lru_cache` (pyapp/report.py:10).\n"  # quote not there
        "The web server is in pyapp/server.py:3.\n"  # invented file
        "Saving is at pyapp/storage.py:400.")  # past the end of the file
    result = check_grounding(answer, index)
    assert (result["cited"], result["existing"], result["grounded"]) == (6, 4, 3)
    assert result["rate"] == 0.5
    assert result["invented"] == ["pyapp/server.py:3", "pyapp/storage.py:400"]
    whys = [c["why"] for c in result["citations"]]
    assert whys[3] == "the quoted code is not in the cited lines"
    assert whys[4] == "no such file in the repository"
    assert whys[5].startswith("line out of range")
    assert result["citations"][1]["resolved"] == "pyapp/models.py"


def test_no_citations_means_no_rate_and_no_repository_means_nothing_exists(pyapp):
    assert check_grounding("Four.", RepoIndex.open(pyapp))["rate"] is None
    result = check_grounding("See pyapp/report.py:6.", None)
    assert (result["cited"], result["grounded"], result["rate"]) == (1, 0, 0.0)


def test_paths_outside_the_repository_never_ground(pyapp):
    index = RepoIndex.open(pyapp)
    result = check_grounding("See ../../etc/passwd.txt:1 and /etc/hosts.py:1 and "
                             ".env.txt:1", index)
    assert result["grounded"] == 0


def test_tokens_split_identifiers_and_stem():
    assert tokens("parseReply parsed_replies HTTPServer") == [
        "pars", "reply", "pars", "reply", "http", "server"]


def test_chunks_have_real_line_spans(pyapp):
    index = RepoIndex.open(pyapp)
    chunks = chunk_repository(index, retrieval_files(index))
    report = [c for c in chunks if c["path"] == "pyapp/report.py"]
    spans = {(c["name"], c["start"], c["end"]) for c in report}
    assert spans == {("inventory_value", 6, 8), ("low_stock", 11, 12), ("(module)", 1, 3)}
    lines = (pyapp / "pyapp" / "report.py").read_text().splitlines()
    for chunk in report:
        if chunk["kind"] != "module":
            assert chunk["text"] == "\n".join(lines[chunk["start"] - 1:chunk["end"]])


def test_bm25_finds_the_code_a_question_is_about(pyapp):
    search = ChunkSearch(chunk_repository(RepoIndex.open(pyapp),
                                          retrieval_files(RepoIndex.open(pyapp))))
    top = search.search("How is the inventory loaded from JSON?", k=3)
    assert top[0]["path"] == "pyapp/storage.py"  # its docstring or load_items itself
    assert "load_items" in [c["name"] for c in top[:2]]
    named = search.search("what does low_stock return", k=2)
    assert (named[0]["name"], named[0]["start"]) == ("low_stock", 11)
    assert search.search("zebra quantum xylophone", k=3) == []  # no known word: nothing


def test_a_long_class_is_indexed_method_by_method(tmp_path):
    body = "\n".join(f"    def m{i}(self):\n" + "        x = 1\n" * 8 + "        return x"
                     for i in range(10))
    (tmp_path / "big.py").write_text(f"class Big:\n    '''A big class.'''\n\n{body}\n")
    index = RepoIndex.open(tmp_path)
    chunks = chunk_repository(index, ["big.py"])
    names = [c["name"] for c in chunks]
    assert names[:3] == ["Big", "Big.m0", "Big.m1"] and len(names) == 11
    assert (chunks[0]["start"], chunks[0]["end"]) == (1, 3)


def test_citations_written_in_prose_are_checked_too(pyapp):
    index = RepoIndex.open(pyapp)
    answer = ("`inventory_value` is in the `pyapp/report.py` file, line 6.\n"
              "`Item` is defined on line 6 of `pyapp/models.py`.\n"
              "`low_stock` is in pyapp/report.py, lines 11-12.\n"
              "`save_items` is in `pyapp/storage.py` on line 400.")
    found = [(c["path"], c["start"], c["end"], c["quotes"]) for c in find_citations(answer)]
    assert found == [("pyapp/report.py", 6, 6, ["inventory_value"]),
                     ("pyapp/models.py", 6, 6, ["Item"]),
                     ("pyapp/report.py", 11, 12, ["low_stock"]),
                     ("pyapp/storage.py", 400, 400, ["save_items"])]
    result = check_grounding(answer, index)
    assert (result["cited"], result["grounded"]) == (4, 3)
    assert result["invented"] == ["`pyapp/storage.py` on line 400"]
