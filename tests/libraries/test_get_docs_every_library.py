"""get_docs over every library of an index: each library has its say, ranked across all by confidence.

The contract (get-docs, D8) ranks chunks across all the libraries asked for. A hybrid search
without a library filter ranks within the library of its best candidate, so one such search
for every library answered from one library only, even when another held the better section.
Through a real MCP session over the three-library index (tests/libraries/conftest.py).
"""

from __future__ import annotations

import json

import pytest
from library_corpora import ACME, PYDANTIX, QUICKWEB

EVERY = [QUICKWEB, PYDANTIX, ACME]


@pytest.mark.parametrize(
    "topic", ["typed fields of a route handler", "validate input before a deploy", "errors when input fails"]
)
def test_an_answer_over_every_library_is_as_sure_as_the_best_single_library_answer(libraries_server, topic) -> None:
    every = libraries_server.json("get_docs", {"libraries": EVERY, "topic": topic})
    alone = {lib: libraries_server.call("get_docs", {"libraries": [lib], "topic": topic}) for lib in EVERY}
    # A library with nothing about the topic answers TOPIC_NOT_FOUND alone, and confidence 0 among the others.
    confidences = {lib: 0.0 if r.is_error else json.loads(r.content[0].text)["confidence"] for lib, r in alone.items()}
    assert every["confidence"] == max(confidences.values())
    assert {e["library_id"]: e["confidence"] for e in every["by_library"]} == confidences
    assert [e["confidence"] for e in every["by_library"]] == sorted(confidences.values(), reverse=True)
    packed = [chunk["library_id"] for chunk in every["chunks"]]
    assert {e["library_id"]: e["chunks"] for e in every["by_library"]} == {lib: packed.count(lib) for lib in EVERY}


def test_libraries_with_something_to_say_are_all_in_the_answer_each_labelled(libraries_server) -> None:
    answer = libraries_server.json("get_docs", {"libraries": EVERY, "topic": "typed fields of a route handler"})
    # QuickWeb's route() reference is the best section; Pydantix's Fields nearly as likely to answer: both go in.
    assert answer["chunks"][0]["library_id"] == QUICKWEB and answer["chunks"][0]["heading"] == "route()"
    assert {chunk["library_id"] for chunk in answer["chunks"]} == {QUICKWEB, PYDANTIX}
    for chunk in answer["chunks"]:
        assert f"--- Chunk: {chunk['chunk_id']} (Library: {chunk['library_id']}) ---" in answer["content"]
    assert answer["by_library"][0] == {"library_id": QUICKWEB, "confidence": answer["confidence"], "chunks": 2}


def test_one_library_asked_has_no_by_library(libraries_server) -> None:
    assert "by_library" not in libraries_server.json("get_docs", {"libraries": [PYDANTIX], "topic": "ValidationError"})
