"""get_library_info of a large library comes in pages of at most the size its schema states; the
pages together are the whole table of contents."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from corpus_files import write_corpus
from mcp_session import McpSession, serve_over_stdio

BIG = "big/docs"
DOCUMENTS = 240
FILES = {
    f"topic-{n:03d}.md": f"# Topic number {n} of the big library\n\nTopic {n} explains one feature of the big library in a few sentences "
    "so that its description is long enough to count.\n"
    for n in range(DOCUMENTS)
}


@pytest.fixture(scope="module")
def big_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpSession]:
    from docs_mcp.indexer import build_index
    from docs_mcp.indexer.libraries.spec import requested_spec

    root = tmp_path_factory.mktemp("big")
    docs = write_corpus(root / "docs", FILES)
    build_index(docs, root / "index", embeddings="none", library=requested_spec(docs, BIG, name="Big"))
    with serve_over_stdio(root / "index", root / "server.log") as session:
        yield session


def test_the_schema_states_the_size_cap(big_server) -> None:
    schema = big_server.input_schema("get_library_info")
    cap = int(re.search(r"at most ([\d,]+) characters", json.dumps(schema)).group(1).replace(",", ""))
    assert schema["properties"]["offset"]["minimum"] == 0
    assert 4_000 <= cap <= 30_000


def test_pages_stay_under_the_cap_and_cover_the_whole_toc(big_server) -> None:
    cap = int(
        re.search(r"at most ([\d,]+) characters", json.dumps(big_server.input_schema("get_library_info")))
        .group(1)
        .replace(",", "")
    )
    paths, offset, pages = [], 0, 0
    while offset is not None:
        text = big_server.text("get_library_info", {"library_id": BIG, "offset": offset})
        assert len(text) <= cap
        page = json.loads(text)
        assert page["toc_offset"] == offset and page["toc_total"] == DOCUMENTS
        paths += [entry["path"] for entry in page["toc"]]
        offset = page["next_offset"]
        assert page["has_more"] is (offset is not None)
        pages += 1
    assert pages > 1
    assert paths == sorted(f"{BIG}/{name}" for name in FILES)
