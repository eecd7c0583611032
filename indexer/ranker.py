"""The learned ranking's weights recorded into every index whose vectors they fit.

A model is trained per embedding model (each has its own cosine scale, and the model's floor
is a probability calibrated on it), so an index records the record whose embedding identity,
checksum included, matches its own. Records come from the index folder's own ``rankers.json``
first (``docs-mcp train-ranking --out INDEX/rankers.json`` writes one for another model), then
from the one shipped with docs-mcp. For a model neither holds, the index records none and the
server ranks by the fusion alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from docs_mcp.indexer.errors import IndexFormatError
from docs_mcp.indexer.records import ModelIdentity

RANKERS_FILE = "rankers.json"
PACKAGED = "packaged"
RECORD_VERSION = 3  # 3: calibrated score model, floor, optional ordering (2: a ranking and a gate)


def is_current(record: Mapping[str, Any] | None) -> TypeGuard[Mapping[str, Any]]:
    """Whether a ranking record is of the format this version reads (older ones are skipped: retrain or re-index)."""
    return isinstance(record, Mapping) and isinstance(record.get("score"), Mapping) and "floor" in record


def ranker_for(identity: ModelIdentity | None, index_dir: Path) -> dict[str, Any] | None:
    """The ranking record for the embedding model ``identity``, with its ``origin``; None when none was trained for it.

    Raises:
        IndexFormatError: the index folder's rankers.json cannot be read as a rankers file.
    """
    if identity is None:
        return None
    own = Path(index_dir) / RANKERS_FILE
    if own.is_file():
        record = _matching(_read_own(own), identity)
        if record is not None:
            return {**record, "origin": str(own)}
    shipped = orjson.loads(resources.files("docs_mcp.indexer").joinpath(RANKERS_FILE).read_bytes())
    record = _matching(shipped, identity)
    return None if record is None else {**record, "origin": PACKAGED}


def check_rankers(index_dir: Path) -> None:
    """Read the index folder's own rankers.json, if any, so that a broken one stops a build before it writes.

    Raises:
        IndexFormatError: it cannot be read as a rankers file.
    """
    own = Path(index_dir) / RANKERS_FILE
    if own.is_file():
        _read_own(own)


def describe_ranking(recorded: Mapping[str, Any] | None, *, has_vectors: bool) -> str:
    """One line on how hybrid search ranks an index that recorded ``recorded``: for the build summary and `docs-mcp info`."""
    if not has_vectors:
        return "BM25 only (no embeddings)"
    if not recorded:
        return (
            "fusion: no learned ranking was trained for this embedding model, so scores are not probabilities and "
            "off-topic questions are held back by the index's own gate, over its probe questions "
            "(train one: docs-mcp train-ranking --out INDEX/rankers.json, then re-index)"
        )
    facts = ranking_facts(recorded)
    source = "shipped with docs-mcp" if facts["origin"] == PACKAGED else f"from {facts['origin']}"
    order = "a learned order" if facts.get("ordering") else "the fusion's order"
    return f"calibrated scores ({source}), {order}; off-topic floor {facts['floor']}"


def ranking_facts(recorded: Mapping[str, Any] | None) -> dict[str, Any]:
    """Whether an index that recorded ``recorded`` has learned parts (calibrated scores, floor, maybe an ordering), their
    origin and off-topic floor."""
    if not recorded:
        return {"learned": False}
    floor = recorded["floor"] if "floor" in recorded else (recorded.get("gate") or {}).get("floor")
    return {
        "learned": True,
        "origin": recorded.get("origin", PACKAGED),
        "floor": floor,
        "ordering": bool(recorded.get("ordering")),
    }


def _read_own(path: Path) -> Mapping[str, Any]:
    try:
        data = orjson.loads(path.read_bytes())
        if not isinstance(data, dict) or not isinstance(data.get("rankers"), list):
            raise ValueError("no 'rankers' list")
        return data
    except (OSError, ValueError) as error:
        raise IndexFormatError(
            f"{path} is not a rankers file ({error}).",
            f"Write it again with `docs-mcp train-ranking --out {path}`, or delete it to use the ranking shipped with docs-mcp.",
        ) from None


def _matching(rankers: Mapping[str, Any], identity: ModelIdentity) -> dict[str, Any] | None:
    """The current-format record for ``identity`` (a record of an older format is skipped)."""
    wanted = {"provider": identity.provider, "model": identity.name, "checksum": identity.checksum}
    return next(
        (dict(r) for r in rankers["rankers"] if isinstance(r, dict) and r.get("embedding") == wanted and is_current(r)),
        None,
    )
