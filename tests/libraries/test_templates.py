"""Prompt templates: ``*.template.md`` files read into prompts, bad ones reported per file."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.indexer.libraries.templates import PromptArgument, find_templates, parse_template
from docs_mcp.server.libraries.prompts import render


def test_front_matter_gives_name_description_and_arguments() -> None:
    text = "---\nname: review-endpoint\ndescription: Review an endpoint.\narguments:\n  - name: path\n    description: The route.\n    required: true\n---\nReview {{path}}.\n"
    template = parse_template("prompts/review.template.md", text)
    assert template.name == "review-endpoint"
    assert template.description == "Review an endpoint."
    assert template.arguments == (PromptArgument("path", "The route.", True),)
    assert template.template == "Review {{path}}."


def test_name_defaults_to_the_file_name() -> None:
    assert parse_template("x/Onboarding.template.md", "Hello.").name == "onboarding"


@pytest.mark.parametrize(
    "text",
    [
        "---\narguments: 3\n---\nBody",
        "---\n- a list\n---\nBody",
        "---\nname: ok\n---\n   \n",
        "---\nname: 'bad name!'\n---\nBody",
        "---\n{unclosed\n---\nBody",
    ],
)
def test_invalid_templates_raise_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_template("t.template.md", text)


def test_find_templates_reports_bad_files_and_skips_hidden_folders(tmp_path: Path) -> None:
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.template.md").write_text("Hidden.")
    (tmp_path / "a.template.md").write_text("Good {{x}}.")
    (tmp_path / "b.template.md").write_text("---\narguments: nope\n---\nBody")
    (tmp_path / "page.md").write_text("# Not a template")
    templates, problems = find_templates(tmp_path)
    assert [t.path for t in templates] == ["a.template.md"]
    assert [p.path for p in problems] == ["b.template.md"]
    assert "Skipped this prompt template" in problems[0].message


def test_render_fills_variables_and_sections() -> None:
    template = "Fix {{lib}}.{{#code}}\nCode: {{code}}{{/code}}{{^code}}\nNo code.{{/code}}"
    assert render(template, {"lib": "acme"}) == "Fix acme.\nNo code."
    assert render(template, {"lib": "acme", "code": "x = 1"}) == "Fix acme.\nCode: x = 1"
