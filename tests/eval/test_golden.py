"""Golden files: the three accepted spellings, and errors that name the file, the line and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.eval.errors import GoldenFileError
from docs_mcp.eval.golden import GoldenQuery, RelevantEntry, load_golden

FIXTURES = Path(__file__).parent / "fixtures" / "skyline"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*objects: object) -> str:
    return "\n".join(json.dumps(o) for o in objects) + "\n"


def test_our_format_with_graded_chunk_and_whole_file_entries(tmp_path):
    path = write(tmp_path, "g.jsonl", jsonl(
        {"id": "a", "query": "retry in go", "relevant": [{"chunk_id": "go.md#retries", "grade": 2}, {"chunk_id": "go.md", "grade": 1}],
         "filters": {"language": "go"}, "category": "natural"},
    ))  # fmt: skip
    assert load_golden(path) == (
        GoldenQuery(
            qid="a",
            query="retry in go",
            relevant=(RelevantEntry(grade=2.0, chunk_id="go.md#retries"), RelevantEntry(grade=1.0, chunk_id="go.md")),
            filters={"language": "go"},
            category="natural",
            where="line 1",
        ),
    )


def test_the_section_form_with_facets_and_style():
    queries = load_golden(FIXTURES / "golden.jsonl")
    first = queries[0]
    assert (first.qid, first.category, dict(first.filters)) == ("sky-1", "keyword", {})
    assert first.relevant == (
        RelevantEntry(
            grade=2.0,
            filepath="guides/webhooks.md",
            heading="Verifying signatures",
            heading_path=("Webhooks", "Verifying signatures"),
        ),
    )
    assert queries[2].relevant[0].heading is None  # null: the whole file
    assert queries[3].relevant[1].heading == "_preamble"


def test_the_reference_case_format():
    queries = load_golden(FIXTURES / "cases.json")
    assert [q.qid for q in queries] == [
        "python client setup",
        "throttled by the api",
        "webhook signature",
        "python timeouts",
        "rust timeouts",
    ]
    first = queries[0]
    assert first.relevant == (
        RelevantEntry(grade=2.0, chunk_id="sdks/python/client.md#python-client/skylineclient-setup"),
    )
    assert (first.limit, first.max_rounds, first.category, dict(first.filters), first.where) == (
        5,
        2,
        "lexical",
        {"language": "python"},
        "item 1",
    )


def test_snake_case_reference_spellings_and_formats_mixed_in_one_file(tmp_path):
    path = write(tmp_path, "mixed.jsonl", jsonl(
        {"query": "a", "expected_chunk_id": "x.md#a", "max_rounds_allowed": 3},
        {"query": "b", "relevant": ["y.md"]},
    ))  # fmt: skip
    first, second = load_golden(path)
    assert (first.qid, first.max_rounds, first.relevant[0].chunk_id) == ("q001", 3, "x.md#a")
    assert (second.qid, second.relevant) == ("q002", (RelevantEntry(grade=1.0, chunk_id="y.md"),))
    assert second.category == "uncategorized"


def test_a_json_object_with_a_cases_list(tmp_path):
    path = write(tmp_path, "suite.json", json.dumps({"cases": [{"query": "a", "expectedChunkId": "x.md#a"}]}))
    assert [q.query for q in load_golden(path)] == ["a"]


@pytest.mark.parametrize(
    ("text", "where", "fragment"),
    [
        (jsonl({"query": "a", "relevant": [{"chunk_id": "x.md"}]}) + "{not json\n", "line 2", "invalid JSON"),
        (jsonl({"query": "", "relevant": ["x.md"]}), "line 1", "`query` must be a non-empty string"),
        (jsonl({"query": "a"}), "line 1", "no relevant entry"),
        (jsonl({"query": "a", "relevent": ["x.md"]}), "line 1", "unknown key(s) relevent"),
        (
            jsonl({"query": "a", "relevant": [{"chunk_id": "x.md", "grade": 0}]}),
            "line 1",
            "`grade` must be a finite number above 0",
        ),
        (
            '{"query": "a", "relevant": [{"chunk_id": "x.md", "grade": Infinity}]}\n',
            "line 1",
            "`grade` must be a finite number above 0 (2 best, 1 partly relevant), got inf",
        ),
        (
            '{"query": "a", "relevant": [{"chunk_id": "x.md", "grade": 1e400}]}\n',
            "line 1",
            "`grade` must be a finite number above 0",
        ),
        ('{"query": "a", "relevant": [{"chunk_id": "x.md", "grade": NaN}]}\n', "line 1", "got nan"),
        (
            '{"query": "a", "relevant": [{"chunk_id": "x.md", "grade": 1' + "0" * 400 + "}]}\n",
            "line 1",
            "`grade` must be a finite number above 0",
        ),
        (
            jsonl(
                {"query": "a", "relevant": ["x.md"]},
                {"query": "b", "relevant": [{"filepath": "x.md", "heading": None}]},
            ),
            "line 2",
            "relevant entry 1: no `grade`; give 2 for the best answer, 1 for a partly relevant one",
        ),
        (
            jsonl({"query": "a", "relevant": [{"chunk_id": "x.md", "filepath": "x.md"}]}),
            "line 1",
            "either `chunk_id` or `filepath`",
        ),
        (
            jsonl({"query": "a", "relevant": [{"filepath": "x.md", "heading": 3}]}),
            "line 1",
            "`heading` must be a string or null",
        ),
        (
            jsonl({"query": "a", "relevant": ["x.md"], "filters": {"language": 1}}),
            "line 1",
            "taxonomy key -> string value",
        ),
        (
            jsonl({"query": "a", "relevant": ["x.md"], "filters": {}, "facets": {}}),
            "line 1",
            "give only one of filters, facets",
        ),
        (
            jsonl({"query": "a", "expectedChunkId": "x.md", "limit": 0}),
            "line 1",
            "`limit` must be an integer from 1 to 50",
        ),
        (
            "\n" + jsonl({"id": "a", "query": "a", "relevant": ["x"]}, {"id": "a", "query": "b", "relevant": ["y"]}),
            "line 3",
            "also used at line 2",
        ),
        (
            jsonl({"query": "a", "relevant": ["x.md"], "expansions": "more words"}),
            "line 1",
            "`expansions` must be an object",
        ),
        (
            jsonl({"query": "a", "relevant": ["x.md"], "expansions": {"hyde": "x"}}),
            "line 1",
            "unknown key(s) hyde; accepted: keywords",
        ),
        (jsonl({"query": "a", "relevant": ["x.md"], "expansions": {"keywords": ["a"]}}), "line 1", "must be strings"),
        (jsonl({"query": "a", "relevant": ["x.md"], "expansions": {"question": " "}}), "line 1", "holds no text"),
    ],
)
def test_a_malformed_query_names_file_line_and_problem(tmp_path, text, where, fragment):
    path = write(tmp_path, "bad.jsonl", text)
    with pytest.raises(GoldenFileError) as caught:
        load_golden(path)
    assert caught.value.where == where
    assert caught.value.message.startswith(f"{path}, {where}: ")
    assert fragment in caught.value.message
    assert "`relevant: [{chunk_id, grade}]`" in caught.value.hint


def test_a_query_may_carry_the_expansions_an_agent_wrote(tmp_path):
    path = write(tmp_path, "g.jsonl", jsonl(
        {"query": "retry when throttled", "relevant": ["x.md"], "expansions": {"keywords": "RateLimitError backoff", "hypothetical_answer": "The client retries 429s."}},
        {"query": "b", "relevant": ["y.md"]},
    ))  # fmt: skip
    expanded, plain = load_golden(path)
    assert expanded.expansions.keywords == "RateLimitError backoff" and expanded.expansions.question == ""
    assert (
        expanded.expansions.concatenated(expanded.query)
        == "retry when throttled RateLimitError backoff The client retries 429s."
    )
    assert plain.expansions is None


def test_a_json_file_reports_the_syntax_error_line(tmp_path):
    path = write(tmp_path, "bad.json", '[\n  {"query": "a",\n  "expectedChunkId": }\n]\n')
    with pytest.raises(GoldenFileError) as caught:
        load_golden(path)
    assert caught.value.where == "line 3"


def test_a_json_list_item_is_named_by_position(tmp_path):
    path = write(tmp_path, "bad.json", json.dumps([{"query": "a", "expectedChunkId": "x.md"}, {"query": "b"}]))
    with pytest.raises(GoldenFileError, match="item 2: no relevant entry"):
        load_golden(path)


@pytest.mark.parametrize(
    ("name", "text", "fragment"),
    [("empty.jsonl", "\n\n", "holds no golden query"), ("scalar.json", "3", "expected a JSON object")],
)
def test_files_without_queries(tmp_path, name, text, fragment):
    with pytest.raises(GoldenFileError, match=fragment):
        load_golden(write(tmp_path, name, text))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("absent.jsonl", None, "absent.jsonl: does not exist"),
        ("folder.jsonl", "folder", "folder.jsonl: is a folder, not a golden JSONL file"),
        (
            "binary.jsonl",
            b"\x7fELF\x02\x01\x01\x00\xff\xfe",
            "binary.jsonl: is not UTF-8 text (byte 8 cannot be decoded)",
        ),
    ],
)
def test_a_path_that_is_not_a_golden_file_says_so_without_the_query_format_hint(tmp_path, name, content, message):
    path = tmp_path / name
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(GoldenFileError) as caught:
        load_golden(path)
    assert caught.value.message == f"{tmp_path}/{message}"
    assert "`query`" not in caught.value.hint and "golden" in caught.value.hint
    assert "Error" not in caught.value.message  # no Python exception name


@pytest.mark.parametrize("name", ["bom.jsonl", "bom.json"])
def test_a_byte_order_mark_is_accepted(tmp_path, name):
    path = tmp_path / name
    path.write_bytes("\ufeff".encode() + jsonl({"query": "a", "relevant": [{"chunk_id": "x.md", "grade": 2}]}).encode())
    assert [q.query for q in load_golden(path)] == ["a"]


def test_the_shared_fastapi_golden_file_loads():
    path = Path(__file__).parents[2] / ".." / "shared" / "golden" / "fastapi.jsonl"
    if not path.exists():
        pytest.skip("../shared/golden/fastapi.jsonl is not present")
    queries = load_golden(path)
    assert len(queries) == 40
    assert sum(len(q.relevant) for q in queries) == 143
    assert {q.category for q in queries} == {"keyword", "natural", "paraphrase"}


def test_an_off_topic_query_has_no_relevant_entry(tmp_path):
    path = write(
        tmp_path, "g.jsonl", jsonl({"id": "off", "query": "capital of France", "relevant": [], "style": "off-topic"})
    )
    (query,) = load_golden(path)
    assert query.off_topic and query.relevant == () and query.category == "off-topic"


def test_an_off_topic_query_with_relevant_entries_is_refused(tmp_path):
    path = write(tmp_path, "g.jsonl", jsonl({"query": "q", "relevant": ["a.md"], "style": "off-topic"}))
    with pytest.raises(GoldenFileError, match="line 1: an off-topic query has no relevant entry"):
        load_golden(path)


@pytest.mark.parametrize("name", ["fastapi-tune", "fastapi-heldout", "powershell-tune", "powershell-heldout"])
def test_the_dev_sets_load_with_their_off_topic_queries(name):
    queries = load_golden(Path(__file__).parents[2] / "eval" / "devsets" / f"{name}.jsonl")
    styles = {q.category for q in queries}
    assert styles == {"keyword", "natural", "paraphrase", "off-topic"}
    assert sum(q.off_topic for q in queries) >= 30
