"""get_docs's packing: short chunks whole, long ones by their best passage, so the budget holds several answers."""

from __future__ import annotations

from docs_mcp.server.libraries.fastpath import LONG_SHARE, Candidate, pack
from docs_mcp.server.search.records import Hit
from docs_mcp.server.search.tokens import count_tokens


def candidate(name: str, content: str, confidence: float = 0.9) -> Candidate:
    hit = Hit(chunk_id=f"{name}.md#{name}", score=1.0, heading=name, breadcrumb=name, snippet="", filepath=f"{name}.md")
    return Candidate(hit=hit, library_id="acme/docs", content=content, confidence=confidence)


def long_section(topic: str) -> str:
    filler = "\n\n".join(f"Paragraph {n} says nothing about the subject at hand, at some length." for n in range(60))
    return f"## {topic}\n\n{filler}\n\nTo configure {topic}, set `{topic}_enabled = true` in the settings file.\n\n{filler}"


def test_long_chunks_go_in_as_their_best_passage_so_several_fit():
    candidates = [candidate(topic, long_section(topic)) for topic in ("retries", "timeouts", "proxies")]
    assert all(count_tokens(c.content) > 2000 / LONG_SHARE for c in candidates)
    packed = pack(candidates, 2000, ["configure", "retries", "timeouts", "proxies"])
    assert [p.candidate.hit.chunk_id for p in packed] == [c.hit.chunk_id for c in candidates]
    assert all(p.passage and not p.truncated for p in packed)
    assert "set `retries_enabled = true`" in packed[0].block
    assert "read it whole with get_doc(chunk_id='retries.md#retries')" in packed[0].block
    assert sum(count_tokens(p.block) + 1 for p in packed) - 1 <= 2000


def test_chunks_go_in_whole_while_they_fit_then_by_their_passage():
    def sized(name: str) -> Candidate:  # about 2,000 tokens: not long for a 10,000-token budget
        body = "\n\n".join(
            f"Paragraph {n} of the {name} section, which explains it at some length." for n in range(125)
        )
        return candidate(name, f"## {name}\n\n{body}\n\nThe {name} key point.")

    candidates = [sized(name) for name in ("alpha", "beta", "gamma", "delta", "epsilon")]
    assert all(2100 < count_tokens(c.content) <= 10_000 / LONG_SHARE for c in candidates)
    packed = pack(candidates, 10_000, ["key", "point"])
    assert [p.passage for p in packed] == [False, False, False, False, True]
    assert packed[-1].block.rstrip("]").endswith("get_doc(chunk_id='epsilon.md#epsilon')")
    assert "The epsilon key point." in packed[-1].block
