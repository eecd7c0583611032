"""`--help` of every command, as a person reads it: one snapshot per command, plus the mistakes
snapshots were accepted with before (type labels on flags, markup eating bracketed text)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
import pytest
import typer
from typer.testing import CliRunner

from docs_mcp import cli

WIDTH = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}


def _commands() -> list[tuple[str, ...]]:
    cli._mount()
    root = typer.main.get_command(cli.app)

    def walk(command: click.Command, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        yield path
        subcommands = getattr(command, "commands", None) or {}  # typer's groups are not click.Group
        for name in sorted(subcommands):
            yield from walk(subcommands[name], (*path, name))

    return list(walk(root, ()))


COMMANDS = _commands()


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "docs-mcp")
def test_help(path: tuple[str, ...], snapshot) -> None:
    done = CliRunner().invoke(cli.app, [*path, "--help"], prog_name="docs-mcp", env=WIDTH)
    assert done.exit_code == 0, done.output
    text = done.output
    assert "<bool>" not in text
    assert not re.search(r"\w \.(\s|$)", text), "a space before a full stop: markup ate bracketed text"
    assert text == snapshot


def test_every_command_is_covered() -> None:
    assert len(COMMANDS) > 10 and ("index",) in COMMANDS and ("keys", "create") in COMMANDS
