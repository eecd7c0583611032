"""Adding fetched pages never drops another writer's work: a build planned on a generation that is no
longer live is refused (IndexChangedError), and the add plans again from the live one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from corpus_files import write_corpus

from docs_mcp.indexer import build_index, list_libraries
from docs_mcp.indexer.build_plan import plan_build
from docs_mcp.indexer.errors import IndexChangedError
from docs_mcp.indexer.generation import write_index
from docs_mcp.indexer.index_file import live_generation
from docs_mcp.indexer.libraries.spec import requested_spec
from docs_mcp.indexer.sources.ingest import SourcePages, index_pages
from docs_mcp.indexer.sources.known_libraries import LLMS_TXT, RegisteredLibrary
from docs_mcp.indexer.sources.llms_txt_parse import parse_llms_txt
from docs_mcp.indexer.sources.web.page_cache import CachedPage

DOC = {"index.md": "# {name}\n\n{name} documentation with enough words to index.\n"}


def add_folder(root: Path, index: Path, library_id: str) -> None:
    docs = write_corpus(root / library_id.replace("/", "-"), {k: v.format(name=library_id) for k, v in DOC.items()})
    build_index(docs, index, embeddings="none", library=requested_spec(docs, library_id))


def test_a_write_planned_on_an_old_generation_is_refused(tmp_path: Path):
    index = tmp_path / "index"
    add_folder(tmp_path, index, "acme/one")
    planned_on = live_generation(index)
    docs = write_corpus(tmp_path / "three", {"index.md": "# Three\n\nThree documentation with words.\n"})
    plan = plan_build(docs, index, requested_spec(docs, "acme/three"))
    add_folder(tmp_path, index, "acme/two")  # another writer lands meanwhile
    with pytest.raises(IndexChangedError, match="changed"):
        write_index(plan.scan, index, embeddings="none", annotate=plan.catalog.annotate, planned_on=planned_on)
    assert sorted(lib.library_id for lib in list_libraries(index)) == ["acme/one", "acme/two"]


def test_index_pages_plans_again_when_another_writer_lands_first(tmp_path: Path, monkeypatch):
    index = tmp_path / "index"
    add_folder(tmp_path, index, "acme/one")
    import docs_mcp.indexer.build as writer

    real_plan = writer.plan_build
    calls = []

    def plan_then_race(docs_dir, index_dir, spec, *args, **kwargs):
        plan = real_plan(docs_dir, index_dir, spec, *args, **kwargs)
        if spec.library_id != "skyhook/skyhook":
            return plan  # the other writer's own build goes through the same writer
        calls.append(1)
        if len(calls) == 1:
            add_folder(tmp_path, index, "acme/two")  # lands between planning and writing
        return plan

    monkeypatch.setattr(writer, "plan_build", plan_then_race)
    llms_text = "# Skyhook\n\n- [Retries](https://docs.skyhook.test/retries.md): Backoff\n"
    source = SourcePages(
        RegisteredLibrary("skyhook/skyhook", "Skyhook", LLMS_TXT, llms_txt_url="https://docs.skyhook.test/llms.txt"),
        parse_llms_txt(llms_text, "https://docs.skyhook.test/llms.txt"),
        llms_text,
        (
            CachedPage(
                "https://docs.skyhook.test/retries.md",
                "skyhook/skyhook",
                "Retries",
                "# Retries\n\nSkyhook waits longer each time.\n",
            ),
        ),
    )
    sleeps: list[float] = []
    index_pages(index, source, sleep=sleeps.append, delays=(0.0, 0.0))
    assert len(calls) == 2
    assert sorted(lib.library_id for lib in list_libraries(index)) == ["acme/one", "acme/two", "skyhook/skyhook"]


def test_two_urls_that_read_as_one_path_are_both_indexed(tmp_path: Path):
    index = tmp_path / "index"
    add_folder(tmp_path, index, "acme/one")
    llms_url = "https://docs.skyhook.test/llms.txt"
    llms_text = (
        "# Skyhook\n\n- [Guide](https://docs.skyhook.test/guide.md): The guide\n"
        "- [Guide, HTML](https://docs.skyhook.test/guide.html): The same name in HTML\n"
    )
    pages = (
        CachedPage(
            "https://docs.skyhook.test/guide.md",
            "skyhook/skyhook",
            "Guide",
            "# Guide\n\nMarkdown words about retries.\n",
        ),
        CachedPage(
            "https://docs.skyhook.test/guide.html",
            "skyhook/skyhook",
            "Guide",
            "# Guide\n\nHTML words about webhooks.\n",
        ),
    )
    source = SourcePages(
        RegisteredLibrary("skyhook/skyhook", "Skyhook", LLMS_TXT, llms_txt_url=llms_url),
        parse_llms_txt(llms_text, llms_url),
        llms_text,
        pages,
    )
    index_pages(index, source, sleep=lambda _: None)
    library = next(lib for lib in list_libraries(index) if lib.library_id == "skyhook/skyhook")
    assert library.documents == 3  # llms.md and both pages: neither overwrote the other
    entry = json.loads((index / "metadata.json").read_text())["libraries"]["skyhook/skyhook"]
    toc = {item["title"]: item["path"] for item in entry["toc"]}
    assert toc["Guide"] == "skyhook/skyhook/guide.md"
    assert re.fullmatch(r"skyhook/skyhook/guide-[0-9a-f]{8}\.md", toc["Guide, HTML"])
