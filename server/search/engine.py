"""The search engine over one index generation: lexical + vector signals, filters, fusion, learned ranking, collapse.

Opening maps the generation's serving arrays (indexer/serving/arrays.py) and reads
nothing else: postings, vectors and per-chunk codes are paged in by the OS as queries
touch them, and the page records (what a hit shows: heading, metadata, the text its
snippet comes from) are read for the hits of the page only.  A search reads the index
store (indexer/index_store.py) only to stem query words it has not seen before.  The query model loads on the first vector search (or in
``warm``), never for a full-text-only search.  In hybrid mode, an index that records a
learned ranking (server/ranking) scores them, may hold the query back, and lookups put their identifiers first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from docs_mcp.indexer.duckdb_store import open_store
from docs_mcp.indexer.index_store import ChunkColumns, IndexStore
from docs_mcp.indexer.libraries.spec import LIBRARY_KEY
from docs_mcp.indexer.ranker import is_current, ranker_for
from docs_mcp.indexer.serving.arrays import ServingArrays
from docs_mcp.indexer.serving.page_records import PageRecord
from docs_mcp.indexer.serving.reader import open_serving_arrays
from docs_mcp.indexer.serving.vector_index import UNSCORED
from docs_mcp.server.ranking.calibration import capped, non_increasing
from docs_mcp.server.ranking.candidates import FAMILY_JACCARD, CandidatePool
from docs_mcp.server.ranking.evidence import Evidence
from docs_mcp.server.ranking.features import PROBES, Baselines, QuerySignals, candidate_table
from docs_mcp.server.ranking.gate import own_gate_holds_back
from docs_mcp.server.ranking.model import RERANK_DEPTH, LearnedRanking, by_probability
from docs_mcp.server.search import lru_cache
from docs_mcp.server.search.collapse import Collapser
from docs_mcp.server.search.evidence_finder import EvidenceFinder
from docs_mcp.server.search.expansion import EXTRA_WEIGHT, Expansions, QueryLegs
from docs_mcp.server.search.filters import FilterRule, TaxonomyColumns, filter_mask
from docs_mcp.server.search.fusion import select_fusion
from docs_mcp.server.search.identifiers import is_lookup
from docs_mcp.server.search.lexical import DEFAULT_FIELD_WEIGHTS, HEADING_FIELD, LexicalScorer, QueryTerms, tokenize
from docs_mcp.server.search.lru_cache import LruCache
from docs_mcp.server.search.modes import MODES, Mode
from docs_mcp.server.search.query_model import query_model
from docs_mcp.server.search.query_vectors import QueryEmbedder, QueryVectors
from docs_mcp.server.search.records import Hit, SearchPage
from docs_mcp.server.search.semantic import chunk_similarities, similarities
from docs_mcp.server.search.signals import Signal
from docs_mcp.server.search.snippets import Needles, make_snippet
from docs_mcp.server.search.topk import top_k

# Under an approximate vector index, this many of the best BM25 candidates get their exact cosine.
EXACT_COSINES = RERANK_DEPTH


@dataclass(frozen=True)
class RankingSettings:
    """Knobs of the ranking; the defaults are what measured best (corpus/guide/ranking.md)."""

    fusion: str = "convex"
    alpha: float = 0.6  # weight of BM25 in the convex sum
    # A chunk found only by the vector signal must be at least this similar to the query:
    # just above the best match of any of 68 nonsense and off-topic queries on FastAPI (0.426).
    similarity_floor: float = 0.43
    # Cosine similarity that counts as "no evidence" when rescaling the vector signal.
    vector_base: float = 0.2
    field_weights: tuple[float, ...] = DEFAULT_FIELD_WEIGHTS
    # Twins across a vector_collapse key: most words in common, or near-identical vectors (collapse.py).
    collapse_jaccard: float = 0.6
    collapse_cosine: float = 0.85
    # A chunk gains this share of the best score in its file: answers cluster in pages.
    file_boost: float = 1.0


@dataclass(frozen=True)
class _Fusion:
    """One query's candidates and what scored them; per-candidate arrays are aligned with ``ids``."""

    ids: np.ndarray  # the candidates' rows, ascending
    scores: np.ndarray  # fused + file_boost * file_best
    fused: np.ndarray  # the fused lexical + vector score
    file_best: np.ndarray  # the best fused score among the candidates of the chunk's file
    terms: QueryTerms
    lexical: Signal
    vector: Signal
    allowed: np.ndarray | None  # the chunks the filters allow (None: no filter)

    def at(self, rows: np.ndarray) -> np.ndarray:
        """Positions of candidate ``rows`` in ``ids``."""
        return np.searchsorted(self.ids, rows)


@dataclass(frozen=True)
class _Ranking:
    order: np.ndarray  # chunk rows, best first (at least the page and one more, when there are)
    shown: np.ndarray  # the scores of ``order`` as hits show them (non-increasing for calibrated scores)
    lexical: Signal
    vector: Signal


class Engine:
    """Ranks the chunks of one index generation for a query; safe to share between threads."""

    def __init__(
        self,
        store: IndexStore,
        settings: RankingSettings | None = None,
        *,
        embedder: QueryEmbedder | None = None,
        learned: str = "ranker",
    ) -> None:
        """Map the generation's serving arrays; ``embedder`` replaces the index's model (benchmarks); ``learned`` names
        the part of the index's ranking record hybrid search uses (``ranker``: documentation; ``tools``: tool discovery).

        Raises:
            IndexFormatError: the generation has no (or unreadable) serving arrays: rebuild it.
        """
        self.store = store
        self.settings = settings or RankingSettings()
        self.generation: str = store.generation
        self.metadata: Mapping = store.metadata
        folder = Path(store.path) / store.generation
        self.arrays = open_serving_arrays(folder)
        self._fuse = select_fusion(self.settings.fusion)
        keys = sorted((self.metadata.get("taxonomy") or {}).keys())
        self.taxonomy = _taxonomy_columns(self.arrays, keys)
        self.collapse_keys = tuple(k for k in keys if (self.metadata["taxonomy"][k] or {}).get("vector_collapse"))
        self.filter_rules = {k: FilterRule.from_entry(self.metadata["taxonomy"][k] or {}) for k in keys}
        # Several libraries: a search within one library scores BM25 with that library's statistics, a hybrid search
        # without a library filter ranks within the library of its best answer (_library_scoped), and the query's
        # signals are read within the library of its best candidate (_query_signals).
        codes = self.taxonomy.codes.get(LIBRARY_KEY)
        self._library_codes = codes if codes is not None and len(self.taxonomy.values[LIBRARY_KEY]) > 1 else None
        self._lexical = LexicalScorer(
            self.arrays.postings, store.stems, self.settings.field_weights, libraries=self._library_codes
        )
        self._vectors = self.arrays.vectors if store.model is not None else None
        self._word_sets: LruCache[int, frozenset[str]] = LruCache("word-sets", lru_cache.WORD_SETS)
        self._query_vectors = QueryVectors(self._query_embedder)
        self.collapser = Collapser(
            self.arrays, self._word_set, jaccard=self.settings.collapse_jaccard, cosine=self.settings.collapse_cosine
        )
        self._model_lock = threading.Lock()  # the query model loads once
        self._columns_lock = threading.Lock()  # the library tools' columns are read once
        self._embedder = embedder
        self._columns: ChunkColumns | None = None
        self.ranker = _learned_ranking(self.metadata.get("ranker"), store, self.has_vectors, learned)
        # Without a learned gate (another model), documentation searches are gated by the index's own probes.
        self._own_gate = learned == "ranker" and self.has_vectors and self.ranker is None
        self._code_role = self.arrays.role_names.index("has_code")
        self._headings: LruCache[int, tuple[str, ...]] = LruCache("chunk-headings", lru_cache.WORD_SETS)
        self._baselines: Baselines | None = None
        self._probes: list[np.ndarray] | None = None
        self._per_library: dict[int, Baselines] = {}
        self._evidence = EvidenceFinder(self._lexical, self.arrays.records.read, self._chunk_headings, self.size)

    @property
    def size(self) -> int:
        return self.arrays.num_chunks

    @property
    def has_vectors(self) -> bool:
        return self._vectors is not None

    def answers_quickly(self, mode: Mode) -> bool:
        """Whether a search in ``mode`` takes about a millisecond here: full text, or hybrid once a static model
        (a table lookup, not a network) is loaded; the server answers such a search without a thread hop."""
        if mode == Mode.bm25 or not self.has_vectors:
            return True
        from docs_mcp.indexer.models.static_model import STATIC_PROVIDER

        model = self.store.model
        return self._embedder is not None and model is not None and model.provider == STATIC_PROVIDER

    @property
    def columns(self) -> ChunkColumns:
        """Every chunk's id, heading, breadcrumb, path and metadata (read once, for the library tools)."""
        with self._columns_lock:
            if self._columns is None:
                self._columns = self.store.columns()
            return self._columns

    def warm(self, mode: Mode = Mode.hybrid) -> None:
        """Load what the first search in ``mode`` would: the stemmer; unless ``mode`` is bm25, the query model; for
        hybrid, the corpus' baselines too (the probe questions embedded: about 70 ms the first search would wait)."""
        self.store.stems(["warming"])
        if mode != Mode.bm25 and self.has_vectors:
            self._query_embedder()
            if mode == Mode.hybrid:
                self.baselines  # noqa: B018 - computed and kept by the property

    def close(self) -> None:
        """Close the generation's store and arrays; the engine is unusable afterwards."""
        self.arrays.records.close()
        self.store.close()

    def search(
        self,
        query: str,
        filters: Mapping[str, str] | None = None,
        *,
        mode: Mode = Mode.hybrid,
        limit: int = 10,
        offset: int = 0,
        abstain: bool = True,
        expansions: Expansions | None = None,
    ) -> SearchPage:
        """One page of the ranked results for ``query`` under ``filters``.

        Pages come from one deterministic ranking, so consecutive pages are disjoint
        and together equal the full list. With ``abstain`` False the learned ranking's gate
        never holds a query back (for callers with a confidence estimate of their own).
        ``expansions`` (expansion.py) add the agent's keywords to the full-text side and its
        question and hypothetical answer to the vector side; without them nothing changes.
        """
        filters = dict(filters or {})
        words = tokenize(query)
        legs = QueryLegs.of(query, expansions)
        ranking = self._rank(query, words, filters, mode, stop_after=offset + limit + 1, abstain=abstain, legs=legs)
        page = [int(i) for i in ranking.order[offset : offset + limit]]
        shown = tokenize(legs.lexical)  # the snippet shows the query's words, and the keywords'
        needles = Needles.of([*shown, *self._lexical.stems(shown)])
        scores = ranking.shown[offset : offset + limit]
        records = self.arrays.records.read(page)
        hits = tuple(
            _hit(record, row, float(score), needles, lexical_rank, vector_rank)
            for record, row, score, lexical_rank, vector_rank in zip(
                records, page, scores, ranking.lexical.ranks(page), ranking.vector.ranks(page)
            )
        )
        return SearchPage(hits=hits, has_more=len(ranking.order) > offset + limit)

    def markdown(self, hits: Sequence[Hit]) -> dict[str, str]:
        """The markdown of each hit's chunk, by chunk id: from the serving files by row, or from the store for a
        generation built without them (or hits whose row is not known)."""
        known = [hit for hit in hits if 0 <= hit.row < self.size]
        texts = self.arrays.records.markdown([hit.row for hit in known]) if known else None
        found = dict(zip((hit.chunk_id for hit in known), texts)) if texts is not None else {}
        missing = [hit.chunk_id for hit in hits if hit.chunk_id not in found]
        return {**found, **self.store.contents(missing)} if missing else found

    def content_words(self, text: str) -> list[str]:
        """The words of ``text`` a search matches on: tokenized, the stop words the index leaves out left out."""
        return self._lexical.content_words(text)

    def query_words(self, query: str) -> tuple[list[str], list[str]]:
        """The query's words (stop words aside), and those of them no chunk holds: what a zero-result hint reports."""
        words = self._lexical.content_words(query)
        return words, [word for word, stem in zip(words, self._lexical.stems(words)) if self._lexical.term_id(stem) < 0]

    def query_similarities(self, query: str) -> np.ndarray | None:
        """Best-window cosine similarity of every chunk (by chunks.id) to ``query``; None without vectors."""
        if self._vectors is None or not tokenize(query):
            return None
        return similarities(self._vectors, self._query_vector(query), self.size, self.arrays.vector_index)

    def candidate_pool(self, query: str, filters: Mapping[str, str] | None = None) -> CandidatePool:
        """The fusion's best ``RERANK_DEPTH`` candidates for ``query``, in its order, with every feature, the query's
        evidence, and which candidates are near-duplicates or twins: what training learns the ranking's parts from."""
        fusion = self._fusion(query, tokenize(query), dict(filters or {}), Mode.fusion)
        head = top_k(fusion.ids, fusion.scores, RERANK_DEPTH)
        evidence = self._evidence.find(query, fusion.lexical.scores, fusion.allowed)
        table = self._table(QueryLegs.plain(query), head, fusion, evidence, first_rank=0)
        family, twins = self._pairs(head, [key for key in self.collapse_keys if key not in (filters or {})])
        return CandidatePool(head, tuple(self.columns.chunk_id[int(i)] for i in head), table, evidence, family, twins)

    # -- ranking ---------------------------------------------------------------------------

    def _rank(
        self,
        query: str,
        words: Sequence[str],
        filters: Mapping[str, str],
        mode: Mode,
        stop_after: int,
        abstain: bool = True,
        legs: QueryLegs | None = None,
    ) -> _Ranking:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        legs = legs or QueryLegs.plain(query)
        fusion = self._fusion(query, words, filters, mode, legs)
        scores = fusion.scores
        ranked: Callable[[int], np.ndarray] = partial(top_k, fusion.ids, fusion.scores)
        if mode == Mode.hybrid and len(fusion.ids):
            ranked, scores, fusion = self._hybrid_by_library(legs, filters, fusion, abstain)
        collapse = [k for k in self.collapse_keys if k not in filters]
        order = self._collapsed(ranked, len(fusion.ids), collapse, stop_after) if collapse else ranked(stop_after)
        shown = scores[fusion.at(order)] if len(order) else np.zeros(0)
        if mode == Mode.hybrid and self.ranker is not None:
            shown = capped(shown, 1.0)  # past the head, and where collapse dropped a twin, no score rises
        return _Ranking(order, shown, fusion.lexical, fusion.vector)

    def _fusion(
        self, query: str, words: Sequence[str], filters: Mapping[str, str], mode: Mode, legs: QueryLegs | None = None
    ) -> _Fusion:
        legs = legs or QueryLegs.plain(query)
        if mode != Mode.bm25 and self._vectors is not None and self.size and words:
            for text in legs.vector:
                self._query_vectors.begin(text)  # the query embeds on an encoder thread while the words are scored
        allowed = filter_mask(self.taxonomy, filters, self.size, self.filter_rules)
        terms = self._lexical.query_terms(legs.lexical) if mode != Mode.vector and self.size else QueryTerms(())
        lexical = self._lexical_signal(terms, mode, allowed, legs.lexical_extra, per_library=LIBRARY_KEY in filters)
        vector = self._vector_signal(legs.vector, words, mode, allowed, lexical)
        return self._fused(terms, lexical, vector, allowed, mode)

    def _fused(
        self, terms: QueryTerms, lexical: Signal, vector: Signal, allowed: np.ndarray | None, mode: Mode
    ) -> _Fusion:
        """The fusion of the two signals over the chunks ``allowed`` marks (the signals are already masked by it)."""
        candidates = lexical.present | (vector.present & (vector.scores >= self.settings.similarity_floor))
        ids = np.flatnonzero(candidates)
        if mode == Mode.bm25:
            fused = np.where(lexical.present[ids], lexical.scores[ids], 0.0)
        elif mode == Mode.vector:
            fused = vector.scores[ids]
        else:
            fused = self._fuse(lexical, vector, ids, alpha=self.settings.alpha, floor=self.settings.vector_base)
        file_best = _file_best(fused, ids, self.arrays) if len(ids) else np.zeros(0)
        scores = fused + self.settings.file_boost * file_best if self.settings.file_boost else fused
        return _Fusion(ids, scores, fused, file_best, terms, lexical, vector, allowed)

    def _lexical_signal(
        self, terms: QueryTerms, mode: Mode, allowed: np.ndarray | None, extra: str = "", *, per_library: bool = False
    ) -> Signal:
        """BM25F over the chunks ``allowed`` marks; ``per_library`` (a search within one library of several): with
        each library's own statistics."""
        if mode == Mode.vector or not self.size:
            return Signal.absent(self.size, 0.0)
        scores = self._lexical.score(terms, per_library=per_library)
        added = [term for term in self._lexical.query_terms(extra).own if term not in terms.all] if extra else []
        if added:  # an expansion's question and answer: their own terms, at a lower weight
            more = self._lexical.score(QueryTerms(tuple(added)), per_library=per_library)
            scores = (scores + EXTRA_WEIGHT * more).astype(np.float32)
        return Signal(scores, _allowed(scores > 0, allowed))

    def _vector_signal(
        self, texts: Sequence[str], words: Sequence[str], mode: Mode, allowed: np.ndarray | None, lexical: Signal
    ) -> Signal:
        if mode == Mode.bm25 or self._vectors is None or not self.size or not words:
            return Signal.absent(self.size, UNSCORED)
        query_vector = self._query_vector(texts[0]) if len(texts) == 1 else self._mean_vector(texts)
        scores = similarities(self._vectors, query_vector, self.size, self.arrays.vector_index)
        if self.arrays.vector_index is not None and lexical.any():
            # The approximate index scores only the windows in the lists nearest the query (a chunk it left
            # out has UNSCORED, one with a window left out a lower cosine): the best BM25 candidates get their
            # exact cosine, so the fusion and the ranking see both signals for them.
            best = top_k(lexical.rows, lexical.present_scores, EXACT_COSINES)
            scores[best] = chunk_similarities(self._vectors, query_vector, best, self.arrays.vector_index)
        return Signal(scores, _allowed(scores >= self.settings.vector_base, allowed))

    def _hybrid_by_library(
        self, legs: QueryLegs, filters: Mapping[str, str], whole: _Fusion, abstain: bool
    ) -> tuple[Callable[[int], np.ndarray], np.ndarray, _Fusion]:
        """Hybrid search over the whole index's fusion, or in an index of several libraries within one library
        (_library_fusions): the first that does not hold the query back, else the last tried."""
        tried = None
        for scoped in self._library_fusions(legs, filters, whole):
            tried = self._hybrid(legs, scoped, abstain, whole)
            if len(tried[0](1)):
                return tried  # held back in one library, a question may still be another's
        return tried if tried is not None else self._hybrid(legs, whole, abstain)

    def _library_fusions(self, legs: QueryLegs, filters: Mapping[str, str], fusion: _Fusion) -> Iterator[_Fusion]:
        """In an index of several libraries, for a hybrid search without a library filter: the fusion within each
        library, with that library's BM25 statistics, first the library of the best answer over the whole index, then
        those of the fusion's next candidates (nothing otherwise). A question about one library is ranked, and held
        back or not, as when that library is indexed alone, without other libraries' pages that share its words; it
        is held back only when every library among its candidates holds it back.

        The best answer is the fusion's first candidate, or for a lookup the first of those that name its identifiers
        best (as hybrid search orders them): the whole index's statistics keep the libraries comparable, where each
        library's own would favour a small library's rare words."""
        codes = self._library_codes
        if codes is None or LIBRARY_KEY in filters:
            return
        head = top_k(fusion.ids, fusion.scores, RERANK_DEPTH)
        first = int(head[0])
        if is_lookup(legs.asked):
            first = int(head[int(np.argmax(self._evidence.lookup_tiers(legs.asked, head)))])  # the first of the best
        for code in dict.fromkeys([int(codes[first]), *codes[head].tolist()]):
            library = codes == code
            allowed = library if fusion.allowed is None else library & fusion.allowed
            lexical = self._lexical_signal(fusion.terms, Mode.hybrid, allowed, legs.lexical_extra, per_library=True)
            vector = Signal(fusion.vector.scores, fusion.vector.present & library)
            yield self._fused(fusion.terms, lexical, vector, allowed, Mode.hybrid)

    def _hybrid(
        self, legs: QueryLegs, fusion: _Fusion, abstain: bool, unscoped: _Fusion | None = None
    ) -> tuple[Callable[[int], np.ndarray], np.ndarray, _Fusion]:
        """How hybrid search orders the fusion's candidates, and their scores (aligned with ``fusion.ids``).

        A lookup's best candidates come first by how their headings name its identifiers (evidence_finder.py).
        With a learned ranking, the head's order may be the learned one,
        scores are calibrated probabilities, and when ``abstain``, a query gets no candidates when the
        filters exclude a lookup's only matches, or when the corpus holds no evidence for it and no
        candidate's probability reaches the floor; without one (another model), when it has no evidence and its best
        cosine is not clearly above the index's probes' (gate.own_gate_holds_back).  The evidence is the full-text side's words (the query and an
        agent's keywords), the lookup the agent's query alone; the learned parts read every word the agent wrote
        (expansion.py). ``unscoped``: the whole index's fusion, when ``fusion`` is one library's (_library_fusions); a
        lookup whose identifiers only other libraries write is ranked over the whole index. The fusion ranked is
        returned with the order and the scores (aligned with its ``ids``).
        """
        head = top_k(fusion.ids, fusion.scores, RERANK_DEPTH)
        evidence = self._evidence.find(legs.lexical, fusion.lexical.scores, fusion.allowed, asked=legs.asked)
        if unscoped is not None and evidence.only_elsewhere:
            return self._hybrid(legs, unscoped, abstain)
        if abstain and evidence.only_elsewhere:
            return (lambda wanted: head[:0]), np.zeros(len(fusion.ids)), fusion
        table = self._table(legs, head, fusion, evidence, first_rank=0)
        ranking = self.ranker
        served = head
        scores = fusion.scores.copy()
        if abstain and self._own_gate and not evidence.holds and own_gate_holds_back(table):
            return (lambda wanted: head[:0]), np.zeros(len(fusion.ids)), fusion
        if ranking is not None:
            probability = ranking.score.probabilities(table)
            if abstain and not evidence.holds and ranking.answered(table) < ranking.floor:
                return (lambda wanted: head[:0]), np.zeros(len(fusion.ids)), fusion
            if ranking.ordering is not None:
                served = by_probability(head, ranking.ordering.logits(table))
        if evidence.lookup:
            tiers = np.asarray(table["lookup_tier"])[_positions(head, served)]
            served = served[np.lexsort((np.arange(len(served)), -tiers))]
        last = 1.0
        if ranking is not None:
            scores = np.zeros(len(fusion.ids))
            shown = non_increasing(probability[_positions(head, served)])
            scores[fusion.at(served)] = shown
            last = float(shown[-1])

        def ranked(wanted: int) -> np.ndarray:
            tail = top_k(fusion.ids, fusion.scores, wanted)[RERANK_DEPTH:]  # past the head: the fusion's order
            if len(tail) and ranking is not None:
                rest = self._table(legs, tail, fusion, evidence, first_rank=RERANK_DEPTH, lookups=False)
                scores[fusion.at(tail)] = capped(ranking.score.probabilities(rest), last)
            return np.concatenate([served, tail])

        return ranked, scores, fusion

    def _table(
        self,
        legs: QueryLegs,
        rows: np.ndarray,
        fusion: _Fusion,
        evidence: Evidence,
        first_rank: int,
        lookups: bool = True,
    ) -> dict:
        """Every feature of candidate ``rows`` (in the fusion's order from ``first_rank``) and of the query."""
        terms = fusion.terms
        words = max(len(self._lexical.content_words(legs.lexical)), 1)  # the words ``terms`` come from
        at = fusion.at(rows)
        table = candidate_table(
            fused=fusion.fused[at],
            file_best=fusion.file_best[at],
            file_boost=self.settings.file_boost,
            cosine=fusion.vector.scores[rows],
            heading_share=self._lexical.matches(terms.all, rows, HEADING_FIELD) / max(len(terms.all), 1),
            coverage=self._lexical.matches(terms.own, rows) / words,
            has_code=self.arrays.roles[rows, self._code_role],
            lookup_tiers=self._evidence.lookup_tiers(legs.asked, rows)
            if lookups and evidence.lookup
            else np.zeros(len(rows)),
            ranks=np.arange(first_rank, first_rank + len(rows)),
        )
        head = top_k(fusion.ids, fusion.scores, RERANK_DEPTH) if first_rank else rows
        return {**table, **self._query_signals(legs.gate, fusion, head, evidence).table()}

    def _query_signals(self, query: str, fusion: _Fusion, head: np.ndarray, evidence: Evidence) -> QuerySignals:
        """What the query is as a whole: its known words, best cosine (within the filters), the best coverage and the
        top cosine among the ``head`` (the fusion's best candidates, best first), and its evidence.

        In an index of several libraries the corpus is the library of the fusion's best candidate: its words, its
        chunks' cosines and its baselines, as when it is indexed alone (the learned parts were fitted on single
        libraries, and five libraries know more of any question than one)."""
        words = max(len(self._lexical.content_words(query)), 1)
        coverage = float(self._lexical.matches(fusion.terms.own, head).max()) / words if len(head) else 0.0
        cosines = np.asarray(fusion.vector.scores)
        library = self._library_mask(int(head[0])) if len(head) and self._library_codes is not None else None
        within = _allowed(np.ones(len(cosines), dtype=bool) if library is None else library, fusion.allowed)
        allowed = cosines if library is None and fusion.allowed is None else cosines[within]
        best = float(allowed.max()) if len(allowed) else 0.0
        top = float(cosines[head[0]]) if len(head) else 0.0
        baselines = self.baselines if library is None else self._library_baselines(int(head[0]), library)
        known = self._lexical.known_share(query, library)
        return QuerySignals(known, _unit(best), min(coverage, 1.0), _unit(top), evidence, baselines)

    def _library_mask(self, row: int) -> np.ndarray:
        codes = self._library_codes
        assert codes is not None
        return codes == codes[row]

    def _library_baselines(self, row: int, library: np.ndarray) -> Baselines:
        """The baselines of the library that holds chunk ``row`` (features.PROBES within its chunks), computed once."""
        code = int(self._library_codes[row]) if self._library_codes is not None else -1
        with self._model_lock:
            known = self._per_library.get(code)
        if known is None:
            best = [float(sims[library].max()) for sims in self._probe_similarities() if library.any()]
            shares = [self._lexical.known_share(probe, library) for probe in PROBES]
            known = Baselines(
                float(np.mean(shares)),
                float(np.mean(best)) if best else 0.0,
                float(np.std(best)) if best else 0.0,
            )
            with self._model_lock:
                self._per_library[code] = known
        return known

    def _probe_similarities(self) -> list[np.ndarray]:
        """Every chunk's cosine to each of PROBES (none without vectors), computed once."""
        with self._model_lock:
            known = self._probes
        if known is None:
            known = [sims for probe in PROBES if (sims := self.query_similarities(probe)) is not None and len(sims)]
            with self._model_lock:
                self._probes = known
        return known

    @property
    def baselines(self) -> Baselines:
        """What the corpus scores for questions it does not answer (features.PROBES), computed once."""
        with self._model_lock:
            known = self._baselines
        if known is None:
            best = [float(sims.max()) for sims in self._probe_similarities()]
            shares = [self._lexical.known_share(probe) for probe in PROBES] if self.size else [0.0]
            known = Baselines(
                float(np.mean(shares)), float(np.mean(best)) if best else 0.0, float(np.std(best)) if best else 0.0
            )
            with self._model_lock:
                self._baselines = known
        return known

    def _pairs(self, head: np.ndarray, collapse: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Which candidates are near-duplicates (same heading, same words) and which are twins across ``collapse``."""
        n = len(head)
        family = np.zeros((n, n), dtype=bool)
        twins = np.zeros((n, n), dtype=bool)
        headings = self.arrays.heading_codes[head]
        for a in range(n):
            for b in np.flatnonzero(headings == headings[a]).tolist():
                if a != b:
                    family[a, b] = self.collapser.near_duplicates(int(head[a]), int(head[b]), FAMILY_JACCARD)
                    twins[a, b] = self.collapser.twins(int(head[a]), int(head[b]), collapse)
        return family, twins

    def _chunk_headings(self, rows: Sequence[int]) -> list[tuple[str, ...]]:
        """Every heading inside each chunk of ``rows`` (its own, the ones under it, a page's title for its first chunk)."""
        missing = [int(row) for row in rows if self._headings.get(int(row)) is None]
        if missing:
            for row, headings in zip(missing, self.store.chunk_headings(missing)):
                self._headings.put(row, headings)
        return [self._headings.get(int(row)) or () for row in rows]

    def _collapsed(
        self, ranked: Callable[[int], np.ndarray], total: int, keys: Sequence[str], stop_after: int
    ) -> np.ndarray:
        """The best ``stop_after`` chunks left after collapse; more candidates are ranked only while twins fall out.

        ``ranked(wanted)`` is the best ``wanted`` of the ``total`` candidates in ranking order.
        """
        wanted = stop_after
        while True:
            ordered = ranked(wanted)
            kept = self.collapser.collapse(ordered, keys, stop_after)
            if len(kept) >= stop_after or wanted >= total:
                return kept
            wanted *= 4

    # -- hits --------------------------------------------------------------------------------

    def _word_set(self, chunk: int) -> frozenset[str]:
        return self._word_sets.get_or_compute(chunk, self._read_word_set)

    def _read_word_set(self, chunk: int) -> frozenset[str]:
        return frozenset(tokenize(self.arrays.records.get(chunk).flat_text))  # folding keeps the words

    # -- query side ----------------------------------------------------------------------------

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding; recent ones are kept, as pages and get_docs re-ask for them."""
        return self._query_vectors.get(query)

    def _mean_vector(self, texts: Sequence[str]) -> np.ndarray:
        """The normalised mean of the texts' embeddings: one query vector for an expanded query's vector side."""
        mean = np.mean([self._query_vector(text) for text in texts], axis=0)
        return (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)

    def _query_embedder(self) -> QueryEmbedder:
        with self._model_lock:
            if self._embedder is None:
                model = self.store.model
                assert model is not None  # only an index with vectors embeds queries, and it records its model
                self._embedder = query_model(model)
            return self._embedder


def _taxonomy_columns(arrays: ServingArrays, keys: Sequence[str]) -> TaxonomyColumns:
    """The filterable keys' codes, from the serving arrays."""
    return TaxonomyColumns.from_codes(
        arrays.taxonomy_keys, arrays.taxonomy_values, arrays.taxonomy_codes, keys, arrays.num_chunks
    )


def _hit(
    record: PageRecord, row: int, score: float, needles: Needles, lexical_rank: int | None, vector_rank: int | None
) -> Hit:
    return Hit(
        chunk_id=record.chunk_id,
        score=round(score, 6),
        heading=record.heading,
        breadcrumb=record.breadcrumb,
        snippet=make_snippet(record.flat_text, needles),
        filepath=record.filepath,
        metadata=record.metadata,
        lexical_rank=lexical_rank,
        vector_rank=vector_rank,
        row=row,
    )


def _file_best(scores: np.ndarray, ids: np.ndarray, arrays: ServingArrays) -> np.ndarray:
    """Per candidate, the best candidate score in its file (candidates' scores are > 0)."""
    files = arrays.file_codes[ids]
    best = np.zeros(len(arrays.file_starts), dtype=scores.dtype)  # the max of the values is exact in their own type
    np.maximum.at(best, files, scores)
    return best.astype(np.float64, copy=False)[files]  # as the sum it joins


def _positions(head: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The position in ``head`` of each of ``rows`` (every one of them is in ``head``)."""
    where = {int(row): k for k, row in enumerate(head.tolist())}
    return np.fromiter((where[int(row)] for row in rows), dtype=np.int64, count=len(rows))


def _learned_ranking(
    recorded: Mapping | None, store: IndexStore, has_vectors: bool, part: str = "ranker"
) -> LearnedRanking | None:
    """The learned ranking an index recorded (its ``tools`` part for tool discovery); for a record of an older format,
    the one this version ships for the index's embedding model (the index's text and vectors are unchanged; only the
    learned weights are newer)."""
    if not has_vectors or not recorded:
        return None
    if not is_current(recorded):
        recorded = ranker_for(store.model, Path(store.path))
        if not is_current(recorded):
            return None
    if part == "tools":
        recorded = recorded.get("tools")
        if not is_current(recorded):
            return None
    return LearnedRanking.from_metadata(recorded)


def _unit(value: float) -> float:
    """A cosine clipped to [0, 1] (-1 marks a chunk without a vector)."""
    return min(max(value, 0.0), 1.0)


def _allowed(present: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    return present if allowed is None else present & allowed


def open_engine(
    index_dir: Path | str,
    settings: RankingSettings | None = None,
    *,
    embedder: QueryEmbedder | None = None,
    generation: str | None = None,
) -> Engine:
    """Open the live generation of the index at ``index_dir`` for searching, or the one named ``generation``
    (a search worker serves what its server leased); ``embedder``: see Engine.

    Raises:
        IndexNotFoundError, IndexFormatError: from the indexer when the index or the generation is missing or unreadable.
    """
    store = open_store(Path(index_dir), generation)
    try:
        return Engine(store, settings, embedder=embedder)
    except BaseException:
        store.close()
        raise
