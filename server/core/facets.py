"""The search facets of an index: each filterable taxonomy key of its metadata.json with its values.

search_docs offers one filter argument per facet, and the library tools read the language facet;
each generation computes them once (``ServedIndex.filters``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger(__name__)

# search_docs' own arguments: a taxonomy key named like one would shadow it.
SEARCH_ARGUMENTS = ("query", "limit", "cursor")


def filter_values(metadata: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each filterable taxonomy key with its values, in metadata.json order.

    Keys without values cannot be filtered on, and a key named like a search
    argument would shadow it: both are left out (the latter with a warning).
    """
    filters: dict[str, tuple[str, ...]] = {}
    for key, entry in (metadata.get("taxonomy") or {}).items():
        values = tuple(str(value) for value in (entry or {}).get("values") or ())
        if key in SEARCH_ARGUMENTS:
            logger.warning("taxonomy key %r clashes with a search_docs argument and cannot be filtered on", key)
        elif values:
            filters[key] = values
    return filters
