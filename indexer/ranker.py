"""The learned ranking's weights shipped with docs-mcp, recorded into every index whose vectors they fit.

A model is trained per embedding model (each has its own cosine scale, and the model's floor
is a probability calibrated on it), so an index records the shipped record whose embedding
identity, checksum included, matches its own; for any other model it records none and the
server ranks by the fusion alone (``eval/training.py`` trains a record for it).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import orjson

from docs_mcp.indexer.records import ModelIdentity

RANKERS_FILE = "rankers.json"


def shipped_ranker(identity: ModelIdentity | None) -> dict[str, Any] | None:
    """The shipped ranking record trained for the embedding model ``identity``, or None."""
    if identity is None:
        return None
    shipped = orjson.loads(resources.files("docs_mcp.indexer").joinpath(RANKERS_FILE).read_bytes())
    wanted = {"provider": identity.provider, "model": identity.name, "checksum": identity.checksum}
    return next((record for record in shipped["rankers"] if record["embedding"] == wanted), None)
