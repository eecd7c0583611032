"""Languages as agents name them: a language matches every member of its family.

An npm package is indexed as ``javascript`` whatever its types are written in, and an agent working in
TypeScript asks for ``typescript``: both name the same ecosystem and the same docs. So resolve_library
and get_docs compare languages by family (the exact spelling first where an index holds several of one
family), and name the languages an index does hold when none matches.
"""

from __future__ import annotations

from collections.abc import Iterable

# Spellings of one language, and languages whose libraries are documented together (TypeScript's types are npm's).
FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"javascript", "typescript", "js", "ts", "jsx", "tsx", "node", "nodejs", "node.js", "npm"}),
    frozenset({"python", "python3", "py", "pypi"}),
    frozenset({"go", "golang"}),
    frozenset({"csharp", "c#", "cs", "dotnet", ".net"}),
    frozenset({"cpp", "c++", "cxx"}),
    frozenset({"shell", "bash", "sh", "zsh"}),
    frozenset({"powershell", "pwsh", "ps1"}),
    frozenset({"rust", "rs"}),
    frozenset({"ruby", "rb"}),
    frozenset({"kotlin", "kt"}),
)


def family(language: str) -> frozenset[str]:
    """Every spelling ``language`` matches (case-folded): its family, or itself alone."""
    folded = language.strip().casefold()
    return next((members for members in FAMILIES if folded in members), frozenset({folded}))


def matching(language: str, values: Iterable[str]) -> list[str]:
    """The ``values`` of ``language``'s family, the exact spelling (case aside) first, the rest in their order."""
    members = family(language)
    found = [value for value in values if value.casefold() in members]
    return sorted(found, key=lambda value: value.casefold() != language.strip().casefold())


def speaks(language: str, values: Iterable[str]) -> bool:
    """Whether any of ``values`` is of ``language``'s family."""
    return bool(matching(language, values))
