"""Resources and prompts through a real `docs-mcp serve` over stdio, and the list_changed notification."""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types
import pytest
from library_corpora import ACME, PYDANTIX, QUICKWEB
from mcp.shared.exceptions import MCPError

from docs_mcp.indexer.models.model_files import DIGESTS

HEALTH, RESOLVED = "docs-mcp://health", "docs-mcp://session/resolved-libraries"
ROUTING = f"docs:///{QUICKWEB}/reference/routing.md"


def _read(session, uri: str) -> str:
    (contents,) = session.run(session.client.read_resource, uri).contents
    return contents.text


def _list_changed(session) -> int:
    return sum(isinstance(message, types.ResourceListChangedNotification) for message in session.notifications)


def test_resources_are_listed(libraries_server) -> None:
    resources = libraries_server.run(libraries_server.client.list_resources).resources
    assert [r.uri for r in resources] == [HEALTH, RESOLVED, ROUTING]
    routing = resources[2]
    assert (routing.title, routing.mime_type) == ("Routing reference", "text/markdown")


def test_health_reports_the_index(libraries_server, libraries_index) -> None:
    health = json.loads(_read(libraries_server, HEALTH))
    assert health["status"] == "healthy" and health["uptime"] >= 0
    assert health["index"]["generation"] == (libraries_index / "CURRENT").read_text().strip()
    assert health["index"]["libraries"] == 3 and health["index"]["files"] == 11 and health["index"]["chunks"] > 11
    embedding = health["embedding"]
    assert (embedding["model"], embedding["dimensions"], embedding["checksum"]) == (
        "sentence-transformers/all-MiniLM-L6-v2",
        384,
        DIGESTS["model.onnx"],
    )
    assert embedding["runtime"].startswith("onnxruntime ")
    assert {f["name"]: f["sha256"] for f in embedding["files"]} == DIGESTS  # which model built the index, file by file
    shipped = json.loads((Path(__file__).parents[2] / "indexer" / "rankers.json").read_text())["rankers"][0]
    assert health["ranking"] == {"learned": True, "origin": "packaged", "floor": shipped["floor"], "ordering": False}


def test_a_marked_document_reads_as_markdown(libraries_server) -> None:
    text = _read(libraries_server, ROUTING)
    page = libraries_server.json("read_page", {"path": f"{QUICKWEB}/reference/routing.md", "max_lines": 5000})
    assert text == page["content"] and text.startswith("# Routing reference")


@pytest.mark.parametrize("uri", ["docs:///quickweb/quickweb/index.md", "docs:///../etc/passwd", "docs-mcp://nope"])
def test_unlisted_resources_cannot_be_read(libraries_server, uri: str) -> None:
    with pytest.raises(MCPError, match="Unknown resource"):
        libraries_server.run(libraries_server.client.read_resource, uri)


def test_resolved_libraries_grow_with_get_library_info_and_announce_it(fresh_server) -> None:
    assert json.loads(_read(fresh_server, RESOLVED)) == {"libraries": []}
    fresh_server.json("resolve_library", {"query": "acme"})  # discovery alone does not count
    assert _list_changed(fresh_server) == 0
    fresh_server.json("get_library_info", {"library_id": PYDANTIX})
    assert _list_changed(fresh_server) == 1
    fresh_server.json("get_library_info", {"library_id": ACME})
    fresh_server.json("get_library_info", {"library_id": PYDANTIX})  # already known: no news
    fresh_server.error_shape("get_library_info", {"library_id": "no/such"})
    assert _list_changed(fresh_server) == 2
    assert json.loads(_read(fresh_server, RESOLVED)) == {
        "libraries": [
            {"id": PYDANTIX, "name": "Pydantix", "languages": ["python"]},
            {"id": ACME, "name": "Acme CLI", "languages": ["go"]},
        ]
    }


def test_capabilities_announce_resources_and_prompts(libraries_server) -> None:
    capabilities = libraries_server.client.server_capabilities
    assert capabilities.resources.list_changed is True
    assert capabilities.prompts is not None


def test_prompts_are_listed(libraries_server) -> None:
    prompts = {p.name: p for p in libraries_server.run(libraries_server.client.list_prompts).prompts}
    assert set(prompts) == {"add-endpoint", "debug-with-docs", "explain-api", "migrate-code"}
    assert [(a.name, a.required) for a in prompts["migrate-code"].arguments] == [
        ("libraryId", True), ("fromVersion", True), ("toVersion", True), ("codeSnippet", False),
    ]  # fmt: skip
    assert [(a.name, a.required) for a in prompts["add-endpoint"].arguments] == [("path", True), ("method", False)]


def test_built_in_prompts_name_our_tools(libraries_server, snapshot) -> None:
    result = libraries_server.run(
        libraries_server.client.get_prompt, "explain-api", {"libraryId": QUICKWEB, "apiName": "Depends"}
    )
    text = result.messages[0].content.text
    assert "get_docs(libraries=['quickweb/quickweb'], topic='Depends')" in text and "read_page" in text
    migrate = libraries_server.run(
        libraries_server.client.get_prompt,
        "migrate-code",
        {"libraryId": ACME, "fromVersion": "1.3", "toVersion": "1.4"},
    )
    assert "Migrate this code" not in migrate.messages[0].content.text  # the optional snippet section is left out
    assert migrate.messages[0].content.text == snapshot


def test_corpus_templates_become_prompts(libraries_server) -> None:
    result = libraries_server.run(
        libraries_server.client.get_prompt, "add-endpoint", {"path": "/items", "method": "POST"}
    )
    assert (
        result.messages[0].content.text
        == "Add a POST endpoint at /items using get_docs(libraries=['quickweb/quickweb'], topic='route')."
    )
    plain = libraries_server.run(libraries_server.client.get_prompt, "add-endpoint", {"path": "/items"})
    assert plain.messages[0].content.text.startswith("Add a endpoint at /items")


@pytest.mark.parametrize(
    ("name", "arguments", "match"),
    [
        ("nope", {}, "Unknown prompt"),
        ("explain-api", {"libraryId": QUICKWEB}, "missing required"),
        ("add-endpoint", {"path": "/x", "extra": "1"}, "unknown argument"),
    ],
)
def test_prompt_errors(libraries_server, name: str, arguments, match: str) -> None:
    with pytest.raises(MCPError, match=match):
        libraries_server.run(libraries_server.client.get_prompt, name, arguments)


def test_resource_templates_are_listed_as_none(libraries_server) -> None:
    # Clients ask on connect; "Method not found" used to show up in their logs as an error.
    assert libraries_server.run(libraries_server.client.list_resource_templates).resource_templates == []
