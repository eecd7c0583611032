"""A registry document's fields read by the shape each must have: a field of another shape (``size: "abc"``,
``1e400``, ``project_urls`` as a list) is one clear error naming the package and the field, never a traceback;
a version no library ID or path can hold (``1.0/../../x``) is left out with a warning.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.errors import PackageFetchError
from docs_mcp.indexer.sources.packages.refs import unsafe_version

logger = logging.getLogger(__name__)

_SHOWN_CHARS = 40


@dataclass(frozen=True)
class DocumentFields:
    """The reader of one package's document (``registry``: PyPI or npm; ``package``: the name asked)."""

    registry: str
    package: str

    def mapping(self, value: Any, field: str) -> Mapping[str, Any]:
        """An object (absent: empty).

        Raises:
            PackageFetchError: ``value`` is not a JSON object.
        """
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.error(field, value, "an object")
        return value

    def sequence(self, value: Any, field: str) -> list[Any]:
        """An array (absent: empty).

        Raises:
            PackageFetchError: ``value`` is not a JSON array.
        """
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(field, value, "an array")
        return value

    def count(self, value: Any, field: str) -> int:
        """A whole number of bytes (absent: 0); registries write it as a number, some as a string of digits.

        Raises:
            PackageFetchError: ``value`` is another string, a fraction, negative, or too large to be one (1e400).
        """
        if value is None or value == "":
            return 0
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            return int(value)
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value >= 0
            and value == int(value)
        ):
            return int(value)
        raise self.error(field, value, "a count of bytes")

    def versions(self, versions: Mapping[str, Any], field: str) -> dict[str, Any]:
        """``versions`` without the ones no library ID can hold ('/', '\\', '..', NUL, control characters), each named."""
        kept = {}
        for version, value in versions.items():
            if unsafe_version(version):
                logger.warning("%s's document for '%s' lists version %s in %s, which holds '/', '\\', '..' or a control character; left out",
                               self.registry, self.package, _shown(version), field)  # fmt: skip
                continue
            kept[version] = value
        return kept

    def error(self, field: str, value: Any, expected: str) -> PackageFetchError:
        return PackageFetchError(
            f"{self.registry}'s document for '{self.package}' cannot be used: {field} is {_shown(value)}, not {expected}.",
            "The registry (or the mirror DOCS_MCP_PYPI_URL / DOCS_MCP_NPM_URL names) serves a malformed document: "
            "try another mirror, or report it to the package's maintainers.",
        )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."
