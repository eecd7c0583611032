"""The default model's query graph in int8 arithmetic: a search query embedded in about 60% of the CPU.

The model file stores each weight matrix as int8 values and a scale per column, and its graph turns
them into float32 before each matrix product (``MatMul(x, Mul(Cast(q), scale))``); ONNX Runtime folds
that into 42 MB of float32 weights, more than this CPU's L3 cache, so every query streams them from
memory. This rewrite hands the same int8 values and scales to com.microsoft ``DynamicQuantizeMatMul``,
which quantizes the activations to uint8 (one scale per matrix, chosen at each run) and multiplies in
integers: 11 MB of weights, and a FastAPI query in 4.4-4.7 instead of 7.5-7.8 ms of one core (217 queries,
2026-11-29). The vectors move (cosine to the float32 ones 0.964 at worst, 0.992 on average), so it
serves queries only, and only when asked (``DOCS_MCP_QUERY_PRECISION=int8``): documents keep their
float32 vectors and an index its model identity. Judged by retrieval on the development sets
(corpus/guide/benchmarks.md), NDCG@5 holds but a few off-topic questions cross the gate, so float32
stays the default. The same input gives the same vector (integer sums do not depend on their order).
"""

from __future__ import annotations

from docs_mcp.environment import variable
from docs_mcp.indexer.errors import ModelLoadError

PRECISION_VARIABLE = "DOCS_MCP_QUERY_PRECISION"
FLOAT32 = "float32"
INT8 = "int8"
PRECISIONS = (FLOAT32, INT8)


def query_precision() -> str:
    """How the default model embeds queries: ``float32`` (as documents, the default) or ``int8``.

    Raises:
        ModelLoadError: the variable holds anything else.
    """
    value = variable(PRECISION_VARIABLE).strip().lower() or FLOAT32
    if value not in PRECISIONS:
        raise ModelLoadError(
            f"{PRECISION_VARIABLE} is '{variable(PRECISION_VARIABLE)}', which is not a query precision.",
            f"Set it to {' or '.join(PRECISIONS)}, or unset it for {FLOAT32}.",
        )
    return value


def int8_queries(model: bytes) -> bytes:
    """``model`` (already rewritten by graph.py) with every int8 weight matrix multiplied in int8.

    Raises:
        ModelLoadError: the graph has no such matrix product (not the default model's graph).
    """
    # Imported here: loading.py reads the precision at every load, the graph is rewritten once.
    from docs_mcp.indexer.models.graph import MICROSOFT, Index, drop_dead_nodes
    from docs_mcp.indexer.models.onnx_wire import OnnxNode, WireFormatError, decode_model, encode_model, model_opsets

    try:
        graph, rest = decode_model(model)
    except WireFormatError as error:
        raise ModelLoadError(f"Cannot make the int8 query graph: {error}", _HINT) from error
    index = Index(graph)
    changed = 0
    for node in list(graph.nodes):
        if node.op_type != "MatMul":
            continue
        scaled = index.made_by(node.inputs[1], "Mul")
        cast = index.made_by(scaled.inputs[0], "Cast") if scaled is not None else None
        if scaled is None or cast is None or cast.inputs[0] not in graph.initializers:
            continue
        scale = graph.constant(scaled.inputs[1])
        if scale is None or scale.ndim != 2 or scale.shape[0] != 1:
            continue  # DynamicQuantizeMatMul takes one scale per column (or one for all)
        out = node.outputs[0]
        replacement = [
            OnnxNode("Squeeze", [scaled.inputs[1]], [f"{out}/column_scales"]),  # (1, N) -> (N,)
            OnnxNode(
                "DynamicQuantizeMatMul",
                [node.inputs[0], cast.inputs[0], f"{out}/column_scales"],
                [out],
                domain=MICROSOFT,
            ),
        ]
        position = graph.nodes.index(node)
        graph.nodes[position : position + 1] = replacement
        changed += 1
    if not changed:
        raise ModelLoadError("Cannot make the int8 query graph: the model has no int8 weight matrix.", _HINT)
    drop_dead_nodes(graph)
    return encode_model(graph, rest, {} if MICROSOFT in model_opsets(rest) else {MICROSOFT: 1})


_HINT = f"Unset {PRECISION_VARIABLE} (or set it to {FLOAT32}): int8 queries need the default model's own file."
