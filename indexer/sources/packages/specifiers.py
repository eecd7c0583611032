"""Which release a version range means: PEP 440 specifiers (PyPI) and npm's semver ranges.

For a dependency no lock file settles, ``sync`` takes the newest release the manifest allows, as
an installer would. npm ranges: ``||`` alternatives of space-separated comparators (``>=``,
``<=``, ``>``, ``<``, ``=``), ``^``, ``~``, x-ranges (``1.x``, ``1.2.*``, ``*``) and hyphen ranges
(``1.2 - 2.3``); pre-releases only when the range names one of the same major.minor.patch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from docs_mcp.indexer.libraries.versions import version_key
from docs_mcp.indexer.sources.packages.refs import PYPI

_SEMVER = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?")
_PARTIAL = re.compile(r"v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?")
_OPERATOR = re.compile(r"\s*(<=|>=|<|>|=|\^|~>?)?\s*([^\s<>=^~]\S*)")

Semver = tuple[int, int, int, tuple]
# A comparator: its test, and the version it names, which admits pre-releases of its major.minor.patch (None: none).
Clause = tuple[Callable[[Semver], bool], Semver | None]


def best_version(ecosystem: str, specifier: str, versions: Iterable[str]) -> str:
    """The newest of ``versions`` that ``specifier`` allows ('' when none does or the specifier cannot be read)."""
    versions = list(versions)
    allows = _pep440(specifier) if ecosystem == PYPI else _npm_range(specifier)
    if allows is None:
        return ""
    matching = sorted((v for v in versions if allows(v)), key=version_key)
    return matching[-1] if matching else ""


def _pep440(specifier: str) -> Callable[[str], bool] | None:
    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return None

    def allows(version: str) -> bool:
        try:
            parsed = Version(version)
        except InvalidVersion:
            return False
        return spec.contains(
            parsed, prereleases=bool(spec) and any(Version(s.version).is_prerelease for s in spec if _parses(s.version))
        )

    return allows


def _parses(text: str) -> bool:
    try:
        Version(text.rstrip(".*"))
        return True
    except InvalidVersion:
        return False


def _npm_range(specifier: str) -> Callable[[str], bool] | None:
    alternatives = []
    for part in ("*" if specifier.strip() in ("", "latest") else specifier).split("||"):
        comparators = _comparators(part.strip())
        if comparators is None:
            return None
        alternatives.append(comparators)

    def allows(version: str) -> bool:
        parsed = _semver(version)
        if parsed is None:
            return False
        for comparators in alternatives:
            if all(test(parsed) for test, _ in comparators):
                if not parsed[3] or any(
                    bound is not None and bound[:3] == parsed[:3] and bound[3] for _, bound in comparators
                ):
                    return True
        return False

    return allows


def _comparators(text: str) -> list[Clause] | None:
    if " - " in text:
        low, high = (p.strip() for p in text.split(" - ", 1))
        if not (_partial(low) and _partial(high)):
            return None
        lower, upper = _comparators(f">={low}"), _comparators(f"<={high}")
        return lower + upper if lower is not None and upper is not None else None  # both are: each end is a version
    out: list[Clause] = []
    for match in _OPERATOR.finditer(text or "*"):
        operator, operand = match.group(1) or "", match.group(2)
        partial = _partial(operand)
        if partial is None:
            return None
        out.extend(_expand(operator, partial))
    return out


def _partial(text: str) -> tuple[int | None, int | None, int | None, tuple] | None:
    match = _PARTIAL.fullmatch(text)
    if not match:
        return None
    numbers = [None if g in (None, "x", "X", "*") else int(g) for g in match.groups()[:3]]
    return (numbers[0], numbers[1], numbers[2], _pre(match.group(4)))


def _expand(operator: str, partial: tuple) -> list[Clause]:
    # Each test reads the bound it closes over (low or high), which no later line of its path assigns again.
    major, minor, patch, pre = partial
    low: Semver = (major or 0, minor or 0, patch or 0, pre)
    high: Semver
    if major is None:
        return [(lambda v: True, None)]
    if operator == "^":
        if major > 0 or minor is None:
            high = (major + 1, 0, 0, ())
        elif minor > 0 or patch is None:
            high = (0, minor + 1, 0, ())
        else:
            high = (0, 0, (patch or 0) + 1, ())
        return [(lambda v: _cmp(v, low) >= 0, low), (lambda v: _cmp(v, high) < 0 and v[:3] != high[:3], None)]
    if operator in ("~", "~>"):
        high = (major + 1, 0, 0, ()) if minor is None else (major, minor + 1, 0, ())
        return [(lambda v: _cmp(v, low) >= 0, low), (lambda v: _cmp(v, high) < 0 and v[:3] != high[:3], None)]
    if minor is None or patch is None:  # an x-range: the span it covers
        high = (major + 1, 0, 0, ()) if minor is None else (major, minor + 1, 0, ())
        below: list[Clause] = [(lambda v: v[:3] < high[:3], None)]
        if operator in ("", "="):
            return [(lambda v: v[:3] >= low[:3], low), *below]
        if operator == ">":
            return [(lambda v: v[:3] >= high[:3], None)]
        if operator == ">=":
            return [(lambda v: v[:3] >= low[:3], low)]
        if operator == "<":
            return [(lambda v: v[:3] < low[:3], None)]
        return below  # <=
    tests: dict[str, Callable[[Semver], bool]] = {
        "": lambda v: _cmp(v, low) == 0, "=": lambda v: _cmp(v, low) == 0,
        ">": lambda v: _cmp(v, low) > 0, ">=": lambda v: _cmp(v, low) >= 0,
        "<": lambda v: _cmp(v, low) < 0, "<=": lambda v: _cmp(v, low) <= 0,
    }  # fmt: skip
    return [(tests[operator], low)]


def _semver(text: str) -> Semver | None:
    match = _SEMVER.fullmatch(text.strip())
    if not match:
        return None
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)), _pre(match.group(4)))


def _pre(text: str | None) -> tuple:
    if not text:
        return ()
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in text.split("."))


def _cmp(a: Semver, b: Semver) -> int:
    """semver order: a pre-release sorts before its release."""
    if a[:3] != b[:3]:
        return -1 if a[:3] < b[:3] else 1
    if a[3] == b[3]:
        return 0
    if not a[3]:
        return 1
    if not b[3]:
        return -1
    return -1 if a[3] < b[3] else 1
