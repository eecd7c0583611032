"""The default model run directly on ONNX Runtime: tokenize, run the encoder, mean-pool, normalise.

all-MiniLM-L6-v2 is a sentence-transformers model: its sentence vector is the mean of the
token vectors the attention mask marks as real, L2-normalised. Running it here, rather than
through fastembed, keeps fastembed (and the imaging and download stack it requires) out of
the base install; the steps and settings below are the ones fastembed 0.7+ applies to this
model, so the vectors are the same (tests/indexer/test_model_fixture.py holds them to vectors
recorded through fastembed, cosine >= 0.9999).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from docs_mcp.indexer.models.optimized_graph import OptimizedGraph

# onnxruntime and tokenizers are imported when a model loads: the CLI and a bm25-only server
# never pay for them.


class SentenceModel:
    """An int8 ONNX sentence encoder with its tokenizer files, producing mean-pooled vectors."""

    def __init__(
        self,
        files: Mapping[str, Path],
        *,
        threads: int | None = None,
        saved: OptimizedGraph | None = None,
        int8_queries: bool = False,
        saved_queries: OptimizedGraph | None = None,
    ) -> None:
        """Load the model from its files by name: ``model.onnx``, ``tokenizer.json``,
        ``tokenizer_config.json``, ``special_tokens_map.json`` and ``config.json``.

        ``threads``: ONNX Runtime's threads per call (None: its default, one per core). ``saved``: where the
        optimised graph is kept between loads (optimized_graph.py); None optimises at every load.
        ``int8_queries``: embed queries with the int8 graph (query_graph.py), kept at ``saved_queries``; the
        float32 graph then loads only when documents are first embedded (a server never embeds any).
        Raises whatever onnxruntime, tokenizers or the JSON reader raise; the caller translates.
        """
        self._tokenizer = _batch_tokenizer(files)
        self._counter: Any = (
            None  # the unpadded tokenizer token_counts needs (a build's, not a server's): made on first use
        )
        self._weights, self._threads, self._saved = files["model.onnx"], threads, saved
        self._documents: Any = None
        self._loading = threading.Lock()
        if int8_queries:
            self._queries = _session(self._weights, threads, saved_queries, int8=True)
        else:
            self._queries = self._document_session()
        self._inputs = {node.name for node in self._queries.get_inputs()}
        self.dimensions = int(_json(files["config.json"])["hidden_size"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts`` as one (len(texts), dimensions) float32 batch (padded to its longest)."""
        return self._embedded(self._document_session(), texts)

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one query (this model reads queries and documents alike, in float32 unless asked)."""
        return self._embedded(self._queries, [text])[0]

    def pooled(self, input_ids: np.ndarray) -> np.ndarray:
        """Mean-pooled, unnormalised vectors of a batch of token ids of one length, shape (rows, dimensions):
        what the static model's distillation (scripts/distill_static_model.py) reads of each token."""
        return self._pooled(self._document_session(), input_ids, np.ones_like(input_ids))

    def _document_session(self) -> Any:
        with self._loading:  # embed_documents' workers may ask at once
            if self._documents is None:
                self._documents = _session(self._weights, self._threads, self._saved)
            return self._documents

    def _embedded(self, session: Any, texts: Sequence[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(list(texts))
        input_ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        attention_mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        return unit_rows(self._pooled(session, input_ids, attention_mask)).astype(np.float32)

    def _pooled(self, session: Any, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feed = {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": np.zeros_like(input_ids)}
        (token_vectors,) = session.run(["last_hidden_state"], {name: feed[name] for name in self._inputs})
        return mean_pooled(token_vectors, attention_mask)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens the model reads of each text (after truncation, without padding)."""
        if self._counter is None:
            self._counter = unpadded(self._tokenizer)
        return [len(encoding.ids) for encoding in self._counter.encode_batch(list(texts))]


def unpadded(tokenizer: Any) -> Any:
    """A copy of a tokenizers.Tokenizer that does not pad: it counts the tokens the model reads of a text."""
    copy = tokenizer.__class__.from_str(tokenizer.to_str())
    copy.no_padding()
    return copy


def mean_pooled(token_vectors: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """The mean of each row's real (unmasked) token vectors, summed in float64."""
    real = attention_mask[:, :, np.newaxis].astype(bool)
    sums = np.sum(token_vectors, axis=1, where=real, dtype=np.float64)
    counts = np.sum(attention_mask, axis=1, keepdims=True)
    return sums / np.maximum(counts, 1e-9)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row divided by its L2 norm (rows of zeros stay zero)."""
    norms = np.linalg.norm(vectors, ord=2, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _batch_tokenizer(files: Mapping[str, Path]) -> Any:
    """The tokenizer as the model reads text: truncated at its context, padded to the batch's longest."""
    from tokenizers import AddedToken, Tokenizer

    config = _json(files["tokenizer_config.json"])
    tokenizer = Tokenizer.from_file(str(files["tokenizer.json"]))
    # tokenizer.json says 128 (sentence-transformers' training length); the model reads 512.
    tokenizer.enable_truncation(
        max_length=int(config["model_max_length"]), direction=config.get("truncation_side", "right")
    )
    for token in _json(files["special_tokens_map.json"]).values():
        tokenizer.add_special_tokens([AddedToken(**token) if isinstance(token, dict) else token])
    pad_token = config["pad_token"]
    tokenizer.enable_padding(
        direction=config.get("padding_side", "right"), pad_id=tokenizer.token_to_id(pad_token), pad_token=pad_token
    )
    return tokenizer


def _session(weights: Path, threads: int | None, saved: OptimizedGraph | None, *, int8: bool = False) -> Any:
    """A session of the model's graph (with ``int8``, the int8 query graph), optimised by ONNX Runtime or loaded from ``saved``."""
    from docs_mcp.indexer.models.graph import rewritten
    from docs_mcp.indexer.models.query_graph import int8_queries
    from docs_mcp.indexer.models.runtime import onnxruntime_without_telemetry

    onnxruntime = onnxruntime_without_telemetry()
    session = saved.load(onnxruntime, _options(onnxruntime, threads)) if saved is not None else None
    if session is None:

        def optimised(save_to: str | None) -> Any:
            options = _options(onnxruntime, threads)
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            if save_to:
                options.optimized_model_filepath = save_to
                options.log_severity_level = (
                    3  # its warning that the file suits this machine only: the file's name says so
                )
            graph = rewritten(weights.read_bytes())
            return _from_memory(onnxruntime, int8_queries(graph) if int8 else graph, options)

        session = saved.optimise_and_save(optimised) if saved is not None else optimised(None)
    _return_freed_memory()
    return session


def _options(onnxruntime: Any, threads: int | None) -> Any:
    options = onnxruntime.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1  # the graph is one chain of operators: nothing runs beside another
    # Threads that spin while they wait for work take the cores from everything else on a busy machine.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def _from_memory(onnxruntime: Any, model: bytes, options: Any) -> Any:
    """A session of ``model`` (ONNX bytes).  On Linux the bytes go to an in-memory file that ONNX Runtime
    reads by path: a session made from a bytes object keeps 22 MB more once loaded (measured)."""
    if not hasattr(os, "memfd_create"):
        return onnxruntime.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    descriptor = os.memfd_create("docs-mcp-model", 0)
    try:
        with open(descriptor, "wb", closefd=False) as handle:
            handle.write(model)
        del model
        return onnxruntime.InferenceSession(
            f"/proc/self/fd/{descriptor}", sess_options=options, providers=["CPUExecutionProvider"]
        )
    finally:
        os.close(descriptor)


def _return_freed_memory() -> None:
    """Give the C heap's free pages back to the system: loading leaves about 60 MB of folded and copied weights
    freed but still resident (glibc keeps them for later allocations); elsewhere nothing to do."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the process's own symbols: glibc's, on Linux
    except (OSError, AttributeError):
        return
    trim(0)
