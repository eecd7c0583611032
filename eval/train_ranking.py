"""Train the rankers file (indexer/rankers.json) of `docs-mcp train-ranking`: pools of every corpus, the
leave-one-corpus-out validation that decides which parts ship (eval/loco.py), the parts fitted on all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from docs_mcp.eval.errors import EvalRunError, TrainingSetError
from docs_mcp.eval.golden import OFF_TOPIC, GoldenQuery, load_golden
from docs_mcp.eval.loco import Corpus, LocoReport, Progress, collect_corpora, fit_parts, record_of, validate
from docs_mcp.eval.tool_calibration import validate_tools
from docs_mcp.indexer import open_index
from docs_mcp.server.ranking.model import RECORD_VERSION

MIN_ON_TOPIC = 5  # a model fitted on fewer graded queries says nothing
MIN_OFF_TOPIC = 1  # the score model's only queries without an answer: without one, no query reads as unanswered


def corpora_of(sets: Sequence[tuple[Path, Path]]) -> list[Corpus]:
    """(golden, index) pairs grouped by index: one corpus per index folder, named by it."""
    grouped: dict[Path, list[Path]] = {}
    for golden, index in sets:
        grouped.setdefault(Path(index), []).append(Path(golden))
    names = [index.name or str(index) for index in grouped]
    return [
        Corpus(name if names.count(name) == 1 else str(index), index, tuple(goldens))
        for (index, goldens), name in zip(grouped.items(), names)
    ]


def check_enough_queries(queries: Sequence[GoldenQuery]) -> tuple[int, int]:
    """(on-topic, off-topic) counts of ``queries``, when they are enough to train on.

    Raises:
        TrainingSetError: fewer than ``MIN_ON_TOPIC`` on-topic or ``MIN_OFF_TOPIC`` off-topic queries.
    """
    on_topic = sum(1 for query in queries if not query.off_topic)
    off_topic = len(queries) - on_topic
    if on_topic < MIN_ON_TOPIC or off_topic < MIN_OFF_TOPIC:
        raise TrainingSetError(
            f"Training needs at least {MIN_ON_TOPIC} on-topic queries and {MIN_OFF_TOPIC} off-topic query "
            f'("style": "{OFF_TOPIC}"); the --set golden files hold {on_topic} on-topic and {off_topic} off-topic.',
            "Add graded queries, and questions the docs do not answer with style off-topic, to the golden files.",
        )
    return on_topic, off_topic


def train_file(
    sets: Sequence[tuple[Path, Path]], progress: Progress | None = None, tools: tuple[Path, Path] | None = None
) -> tuple[dict, LocoReport | None, LocoReport | None]:
    """The rankers file fitted on every (golden, index) pair of ``sets``, the leave-one-corpus-out report that
    decided which parts ship (None for one corpus: nothing to hold out, so no ordering ships) and, with ``tools``
    (a gateway config file and its tool-discovery golden file), tool discovery's own parts and their report.

    Raises:
        GoldenFileError: a golden file is missing or malformed.
        TrainingSetError: too few on-topic or off-topic queries.
        EvalRunError: no set, or indexes without vectors or embedded by different models.
    """
    corpora = corpora_of(sets)
    check_enough_queries([q for corpus in corpora for golden in corpus.goldens for q in load_golden(golden)])
    identities = {_identity(corpus.index) for corpus in corpora}
    identity = next(iter(identities)) if len(identities) == 1 else None
    if identity is None:
        raise EvalRunError(
            "The training indexes must all have vectors from one embedding model.",
            "Build every --set index with the same --model (or the packaged one).",
        )
    pools = collect_corpora(corpora, progress)
    report: LocoReport | None = None
    if len(pools) > 1:
        report = validate(pools)
        record = report.record
    else:
        parts = fit_parts(pools, ordering=False)
        record = record_of(parts, pools, (), ordering=False, floor=True)
    tools_report = None
    if tools is not None:
        tools_report = validate_tools(*tools)
        record = {**record, "tools": tools_report.record}
    (provider, name, checksum) = identity
    embedding = {"provider": provider, "model": name, "checksum": checksum}
    return {"version": RECORD_VERSION, "rankers": [{"embedding": embedding, **record}]}, report, tools_report


def _identity(index: Path) -> tuple[str, str, str] | None:
    with open_index(Path(index)) as reader:
        model = reader.model
    return None if model is None else (model.provider, model.name, model.checksum)
