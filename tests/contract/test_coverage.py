"""Both directions between the contract and the tests: every clause of contract_clauses.py is proved
by at least one test tagged ``@pytest.mark.contract("ID")``, and every tag names a clause.

The tags are read from the test files' source (an AST walk), so this holds whichever tests a run
selects.  A tag counts only where it marks a test: a decorator of a ``test_*`` function or a
``Test*`` class, a module's ``pytestmark``, or the ``marks`` of a ``pytest.param``.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from contract_clauses import CLAUSES

TESTS = Path(__file__).resolve().parents[1]
ID_SHAPE = re.compile(r"[A-Z]{2,3}(?:-[A-Z0-9]+)+")


@dataclass(frozen=True)
class Tag:
    """One clause ID named by a contract mark, and the test it marks."""

    clause: str
    test: str  # "file::name", or "file:line" where the mark marks no test

    @property
    def on_a_test(self) -> bool:
        return "::" in self.test


def tags_in(path: Path, display: str) -> list[Tag]:
    """Every contract tag in the test file ``path``; ``display`` names the file in messages."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    placed: dict[int, str] = {}  # id of a mark's Call node -> the test it marks
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _is_test(node):
            for decorator in node.decorator_list:
                placed.update((id(call), f"{display}::{node.name}") for call in _marks(decorator))
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
            placed.update((id(call), f"{display}::pytestmark") for call in _marks(node.value))
        elif isinstance(node, ast.Call) and _dotted(node.func).endswith("pytest.param"):
            for keyword in node.keywords:
                if keyword.arg == "marks":
                    for call in _marks(keyword.value):  # inside a test's parametrize, the test itself is named
                        placed.setdefault(id(call), f"{display}::param:{node.lineno}")
    tags = []
    for call in _marks(tree):
        test = placed.get(id(call), f"{display}:{call.lineno}")
        if not call.args or call.keywords:
            tags.append(Tag("<no clause ID>", test))
        for arg in call.args:
            literal = isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            tags.append(Tag(arg.value if literal else "<not a string literal>", test))
    return tags


def _is_test(node: ast.AST) -> bool:
    return node.name.startswith("Test") if isinstance(node, ast.ClassDef) else node.name.startswith("test")


def _marks(node: ast.AST) -> Iterator[ast.Call]:
    """The ``pytest.mark.contract(...)`` calls inside ``node``."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call) and _dotted(child.func) in ("pytest.mark.contract", "mark.contract"):
            yield child


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def all_tags() -> list[Tag]:
    return [
        tag for path in sorted(TESTS.rglob("test_*.py")) for tag in tags_in(path, path.relative_to(TESTS).as_posix())
    ]


def proofs_by_clause(tags: list[Tag]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for tag in tags:
        if tag.on_a_test:
            found[tag.clause].append(tag.test)
    return found


# -- the manifest ------------------------------------------------------------------------------


def test_clause_ids_are_unique_and_well_formed():
    ids = [clause.id for clause in CLAUSES]
    assert len(ids) == len(set(ids))
    assert [i for i in ids if not ID_SHAPE.fullmatch(i)] == []


def test_each_clause_quotes_the_contract(shared_dir):
    seed = next((shared_dir / "seeds").glob("003_*.txt")).read_text(encoding="utf-8")
    words = " ".join(seed.split())
    assert [clause.id for clause in CLAUSES if " ".join(clause.quote.split()) not in words] == []


# -- both directions ---------------------------------------------------------------------------


def test_every_clause_has_a_test():
    proved = proofs_by_clause(all_tags())
    assert [clause.id for clause in CLAUSES if not proved.get(clause.id)] == []


def test_every_tag_names_a_clause_and_marks_a_test():
    known = {clause.id for clause in CLAUSES}
    assert [f"{tag.test}: {tag.clause}" for tag in all_tags() if tag.clause not in known or not tag.on_a_test] == []


# -- the scanner itself ------------------------------------------------------------------------

SAMPLE = """
import pytest
from pytest import mark

pytestmark = [pytest.mark.contract("MOD-1")]

@pytest.mark.contract("FN-1", "FN-2")
def test_function():
    pass

@mark.contract("CLS-1")
class TestGroup:
    @pytest.mark.contract("METHOD-1")
    def test_method(self):
        pass

@pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.contract("PARAM-1"))])
def test_params(x):
    pass

@pytest.mark.contract("HELPER-1")
def helper():
    pass

@pytest.mark.contract(CLAUSE)
def test_not_literal():
    pass

@pytest.mark.contract()
def test_empty():
    pass
"""


def test_the_scanner_finds_every_placement_and_flags_misuse(tmp_path):
    path = tmp_path / "test_sample.py"
    path.write_text(SAMPLE, encoding="utf-8")
    tags = {(tag.clause, tag.test.split("::")[1] if tag.on_a_test else "not on a test") for tag in tags_in(path, "s")}
    assert tags == {
        ("MOD-1", "pytestmark"),
        ("FN-1", "test_function"),
        ("FN-2", "test_function"),
        ("CLS-1", "TestGroup"),
        ("METHOD-1", "test_method"),
        ("PARAM-1", "test_params"),
        ("HELPER-1", "not on a test"),
        ("<not a string literal>", "test_not_literal"),
        ("<no clause ID>", "test_empty"),
    }
