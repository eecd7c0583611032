"""BM25F (indexer/serving/bm25f.py) against a plain-Python reference: Robertson and Zaragoza's formula, one posting at a time."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.indexer.serving.bm25f import DEFAULT_FIELD_WEIGHTS, K1, B, bm25f_weights, library_bm25f_weights


def reference_bm25f(
    tf: list[list[float]], docs: list[int], df: list[float], lengths: list[list[float]], weights: list[float]
) -> list[float]:
    """score = idf * t / (t + k1) * (k1 + 1), where t = sum over fields of w_f * tf_f / (1 - b + b * len_f / avglen_f)
    and idf = log10((N - df + 0.5) / (df + 0.5) + 1); a field no chunk has counts as average length 1."""
    n = len(lengths)
    fields = len(weights)
    average = [sum(row[f] for row in lengths) / n if n else 1.0 for f in range(fields)]
    average = [a if a > 0 else 1.0 for a in average]
    scores = []
    for frequencies, doc, frequency_of_term in zip(tf, docs, df):
        t = sum(weights[f] * frequencies[f] / (1 - B + B * lengths[doc][f] / average[f]) for f in range(fields))
        idf = math.log10((n - frequency_of_term + 0.5) / (frequency_of_term + 0.5) + 1.0)
        scores.append(idf * t * (K1 + 1) / (t + K1))
    return scores


@st.composite
def postings(draw):
    fields = draw(st.integers(1, 3))
    chunks = draw(st.integers(1, 12))
    lengths = [[float(draw(st.integers(0, 40))) for _ in range(fields)] for _ in range(chunks)]
    count = draw(st.integers(0, 20))
    docs = [draw(st.integers(0, chunks - 1)) for _ in range(count)]
    tf = [[float(draw(st.integers(0, 5))) for _ in range(fields)] for _ in range(count)]
    df = [float(draw(st.integers(1, chunks))) for _ in range(count)]
    weights = [draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])) for _ in range(fields)]
    return tf, docs, df, lengths, weights


@settings(max_examples=200, deadline=None)
@given(postings())
def test_bm25f_matches_the_reference(case):
    tf, docs, df, lengths, weights = case
    fields = len(weights)
    ours = bm25f_weights(
        np.asarray(tf, dtype=np.float32).reshape(len(tf), fields),
        np.asarray(docs, dtype=np.int64),
        np.asarray(df, dtype=np.float64),
        np.asarray(lengths, dtype=np.float32),
        weights,
    )
    assert ours.dtype == np.float32
    assert np.allclose(ours, reference_bm25f(tf, docs, df, lengths, weights), rtol=1e-5, atol=1e-6)


def test_a_heavier_field_scores_higher_and_scores_saturate():
    lengths = np.asarray([[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]], dtype=np.float32)
    docs, df = np.asarray([0, 0]), np.asarray([1.0, 1.0])
    in_heading, in_body = bm25f_weights(
        np.asarray([[0, 1, 0], [0, 0, 1]], dtype=np.float32), docs, df, lengths, DEFAULT_FIELD_WEIGHTS
    )
    assert in_heading > in_body
    many = bm25f_weights(
        np.asarray([[0, 0, 1000]], dtype=np.float32), docs[:1], df[:1], lengths, DEFAULT_FIELD_WEIGHTS
    )[0]
    idf = math.log10((2 - 1 + 0.5) / (1 + 0.5) + 1.0)
    assert many < idf * (K1 + 1)  # the saturation bound


@settings(max_examples=100, deadline=None)
@given(postings(), st.data())
def test_per_library_weights_are_each_librarys_own(case, data):
    """Each library's postings score as in an index of that library alone: its chunks, lengths and frequencies."""
    tf, docs, _, lengths, weights = case
    chunks = len(lengths)
    libraries = np.asarray([data.draw(st.integers(-1, 2)) for _ in range(chunks)], dtype=np.int32)
    # Postings by term, each term's by chunk, as the serving arrays hold them: one posting per (term, chunk).
    pairs = sorted({(data.draw(st.integers(0, 3)), doc) for doc in docs})
    terms = np.asarray([term for term, _ in pairs], dtype=np.int64)
    docs_array = np.asarray([doc for _, doc in pairs], dtype=np.int64)
    fields = len(weights)
    tf_array = np.asarray([tf[k % len(tf)] for k in range(len(pairs))], dtype=np.float32).reshape(len(pairs), fields)
    starts = np.searchsorted(terms, np.arange(5))
    ours = library_bm25f_weights(
        tf_array, docs_array, starts, np.asarray(lengths, dtype=np.float32), weights, libraries
    )
    for library in set(libraries.tolist()):
        members = np.flatnonzero(libraries == library)
        local = {int(chunk): k for k, chunk in enumerate(members)}
        mine = [k for k, doc in enumerate(docs_array.tolist()) if libraries[doc] == library]
        df = [sum(1 for j in mine if terms[j] == terms[k]) for k in mine]
        alone = reference_bm25f(
            tf_array[mine].tolist(),
            [local[int(docs_array[k])] for k in mine],
            df,
            [lengths[c] for c in members],
            weights,
        )
        assert np.allclose(ours[mine], alone, rtol=1e-5, atol=1e-6)
