"""The learned parts of tool discovery, validated leaving one upstream server out at a time.

Tool discovery ranks the tool catalog's own index (server/gateway/catalog_index.py) with the engine of
search_docs. Its relevance is the calibrated probability that a tool is the one asked for, fitted on
the tool-discovery golden set (eval/golden/gateway.jsonl) the way eval/loco.py fits the documentation's
parts on corpora: each server's tools play the part of a corpus, so a model is measured on the queries
for a server whose tools it never saw (off-topic queries, which no tool answers, are dealt to the
servers in turn). A learned ordering ships only if it beats the fusion's order for every held-out server.
"""

from __future__ import annotations

from pathlib import Path

from docs_mcp.eval.gateway_eval import gateway_for_eval, tool_judgments
from docs_mcp.eval.golden import load_golden
from docs_mcp.eval.loco import LocoReport, Progress, validate
from docs_mcp.eval.training import Pool, collect
from docs_mcp.server.gateway.records import LOCAL_CALLER


def tool_pools(config: Path, golden: Path) -> dict[str, list[Pool]]:
    """The pools of the golden tool queries over the catalog of ``config``'s upstreams, grouped by the server of
    each query's best tool.

    Raises:
        EvalRunError: the config file is missing or enables no upstream.
        GoldenFileError, GoldenResolveError: the golden file is bad or names tools the catalog lacks.
    """
    gateway = gateway_for_eval(config)
    try:
        available = gateway.available(LOCAL_CALLER)
        gateway.index.snapshot(available, gateway.docs)
        queries = load_golden(golden)
        judgments = tool_judgments(queries, {tool.key for tool in available})
        pools = collect(queries, gateway.index.index_dir, "tools", gateway.index.ranking, judgments)
    finally:
        gateway.close()
    servers = sorted({tool.split(":", 1)[0] for p in pools for j in p.judgments for tool in j.ids})
    grouped: dict[str, list[Pool]] = {server: [] for server in servers}
    unanswered = 0
    for pool in pools:
        if pool.judgments:
            best = max(pool.judgments, key=lambda j: j.grade)
            grouped[sorted(best.ids)[0].split(":", 1)[0]].append(pool)
        else:
            grouped[servers[unanswered % len(servers)]].append(pool)
            unanswered += 1
    return grouped


def validate_tools(config: Path, golden: Path, progress: Progress | None = None) -> LocoReport:
    """Leave each server's queries out in turn; the record is the tools' part of the rankers file."""
    return validate(tool_pools(config, golden), progress, gate=False)
