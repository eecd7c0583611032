"""Pages in another encoding than UTF-8: real files in a docs folder, read by the encoding they declare."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from docs_mcp.indexer.corpus.charsets import declared_encoding, html_text, utf8_html
from docs_mcp.indexer.corpus.scan import scan_corpus

TEXT = "Skyhook retries each failed request with backoff and jitter before it gives up."


def html(title: str, head: str = "") -> str:
    return f"<html><head>{head}<title>{title}</title></head><body><h1>{title}</h1><p>{TEXT}</p></body></html>"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "meta.html").write_bytes(html("Café crème", '<meta charset="iso-8859-1">').encode("latin-1"))
    (root / "http-equiv.html").write_bytes(
        html("“Smart” quotes", '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">').encode(
            "cp1252"
        )
    )
    (root / "xhtml.html").write_bytes(
        ('<?xml version="1.0" encoding="ISO-8859-15"?>\n' + html("Prix en €")).encode("iso-8859-15")
    )
    (root / "bom.html").write_bytes(codecs.BOM_UTF16_LE + html("Ünïcode sixteen").encode("utf-16-le"))
    (root / "undeclared.html").write_bytes(html("Sans déclaration").encode("latin-1"))
    (root / "notes.md").write_bytes(f"# Notes\n\nDéjà vu: {TEXT}\n".encode("latin-1"))
    (root / "good.md").write_text(f"# Good\n\n{TEXT}\n", encoding="utf-8")
    return root


def test_html_pages_are_read_in_the_encoding_they_declare(docs: Path) -> None:
    # Each of these was "not UTF-8 text; skipped it. Re-save it as UTF-8." though it says what it is.
    scan = scan_corpus(docs)
    titles = set(scan.files.values())
    assert {"Café crème", "“Smart” quotes", "Prix en €", "Ünïcode sixteen", "Good"} <= titles
    assert all("\ufffd" not in chunk.content for chunk in scan.chunks)


def test_what_declares_nothing_and_is_not_utf8_is_a_problem_named_by_its_file(docs: Path) -> None:
    problems = {problem.path: problem.message for problem in scan_corpus(docs).problems}
    assert set(problems) == {"undeclared.html", "notes.md"}
    assert problems["undeclared.html"] == (
        "not UTF-8 text (byte 0xe9 at offset 25) and no charset declared; skipped it. Re-save it as UTF-8, or declare its encoding "
        '(<meta charset="windows-1252">).'
    )
    assert (
        problems["notes.md"] == "not UTF-8 text (byte 0xe9 at offset 10); skipped it. Re-save it as UTF-8."
    )  # markdown is UTF-8, always


@pytest.mark.parametrize(
    ("head", "content_type", "encoding"),
    [
        (b"<meta charset='ISO-8859-1'>", "", "cp1252"),  # as browsers read it: windows-1252, its superset
        (b"<meta charset=koi8-r>", "text/html; charset=shift_jis", "shift_jis"),  # the HTTP header outranks the page
        (
            codecs.BOM_UTF8 + b"<meta charset=latin1>",
            "text/html; charset=koi8-r",
            "utf-8-sig",
        ),  # a byte order mark outranks both
        (b"<meta charset=utf-16>", "", "utf-8"),  # a page read as ASCII to find this is no UTF-16
        (b"<meta charset=zlib>", "", ""),  # Python's codecs that are no web encoding are no declaration
        (b"<meta charset=unicode_escape>", "", ""),
        (b"<meta charset=no-such-thing>", "text/html; charset=nonsense", ""),
        (b"<!-- " + b"x" * 5000 + b" --><meta charset=koi8-r>", "", ""),  # past the prescan
    ],
)
def test_which_declaration_counts(head: bytes, content_type: str, encoding: str) -> None:
    assert declared_encoding(head + b"<p>text</p>", content_type) == encoding


def test_a_fetched_page_is_kept_as_utf8_that_reads_the_same_without_its_header() -> None:
    latin = html("Café", '<meta charset="iso-8859-1">').encode("latin-1")
    kept = utf8_html(latin, "text/html; charset=iso-8859-1")
    assert kept.startswith(codecs.BOM_UTF8) and html_text(kept) == html_text(latin) and "Café" in html_text(kept)
    header_only = html("Crème").encode("latin-1")
    assert "Crème" in html_text(utf8_html(header_only, "text/html; charset=ISO-8859-1"))
    already = html("Déjà").encode("utf-8")
    assert utf8_html(already, "text/html") is already  # a UTF-8 page is stored byte for byte (its digest unchanged)


def test_a_page_read_by_url_is_decoded_by_its_own_declaration_when_its_header_names_none() -> None:
    from docs_mcp.indexer.sources.web.convert import to_markdown
    from docs_mcp.indexer.sources.web.fetch import Fetched

    body = html("Café crème", '<meta charset="iso-8859-1">').encode("latin-1")
    converted = to_markdown(Fetched("https://docs.example.com/cafe.html", 200, body, "text/html", "", ""))
    assert converted.title == "Café crème" and "\ufffd" not in converted.markdown
