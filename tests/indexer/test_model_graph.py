"""The default model's rewritten graph (indexer/models/graph.py) computes what the installed graph computes.

The rewrites change how ONNX Runtime runs the model (int8 token embeddings looked up before they
are scaled, one attention and one GELU operator per layer), never the arithmetic: every vector of
the pinned texts must agree with the unrewritten graph's to float rounding.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import onnxruntime
import pytest
from model_fixtures import fixed_texts

from docs_mcp.indexer.models import onnx_wire
from docs_mcp.indexer.models.graph import rewritten
from docs_mcp.indexer.models.model_files import verified_files
from docs_mcp.indexer.models.sentence_model import SentenceModel, mean_pooled, unit_rows


@pytest.fixture(scope="module")
def files() -> dict:
    return {installed.record.name: installed.path for installed in verified_files()}


@pytest.fixture(scope="module")
def source(files) -> bytes:
    return files["model.onnx"].read_bytes()


def _op_types(model: bytes) -> Counter:
    graph, _ = onnx_wire.decode_model(model)
    return Counter(node.op_type for node in graph.nodes)


def test_the_rewrite_fuses_attention_and_gelu_and_keeps_the_token_table_int8(source) -> None:
    before, after = _op_types(source), _op_types(rewritten(source))
    assert before["Softmax"] == before["Erf"] == 6 and before["MultiHeadAttention"] == 0
    assert after["MultiHeadAttention"] == after["Gelu"] == 6
    assert after["Softmax"] == after["Erf"] == after["IsNaN"] == after["Where"] == 0
    assert sum(after.values()) < sum(before.values()) * 0.6
    graph, _ = onnx_wire.decode_model(rewritten(source))
    table = "inner.embeddings.word_embeddings.weight_q"
    readers = [node for node in graph.nodes if table in node.inputs]
    assert [node.op_type for node in readers] == ["Gather"]  # looked up as int8, never cast as a whole


def test_the_rewritten_graph_embeds_as_the_installed_one(files) -> None:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    installed = onnxruntime.InferenceSession(str(files["model.onnx"]), options, providers=["CPUExecutionProvider"])
    model = SentenceModel(files, threads=1)
    texts = [text for _, text in fixed_texts()]
    for batch in ([text] for text in texts[:6]), [texts[i : i + 4] for i in range(0, len(texts), 4)]:
        for group in batch:
            encodings = model._tokenizer.encode_batch(group)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (tokens,) = installed.run(["last_hidden_state"], feed)
            expected = unit_rows(mean_pooled(tokens, mask))
            cosines = np.sum(model.embed(group) * expected, axis=1)
            assert cosines.min() >= 0.999999, cosines


def test_a_graph_of_another_shape_is_left_as_it_is() -> None:
    node = onnx_wire.OnnxNode("Identity", ["x"], ["y"])
    output = onnx_wire.length_field(onnx_wire.VALUE_INFO_NAME, b"y")
    graph = onnx_wire.length_field(onnx_wire.GRAPH_NODE, node.encode()) + onnx_wire.length_field(
        onnx_wire.GRAPH_OUTPUT, output
    )
    model = onnx_wire.varint_field(1, 8) + onnx_wire.length_field(onnx_wire.MODEL_GRAPH, graph)
    assert rewritten(model) is model
    assert rewritten(b"\xff\xff not protobuf") == b"\xff\xff not protobuf"


def test_decoding_and_encoding_keeps_every_node_and_initializer(source) -> None:
    graph, rest = onnx_wire.decode_model(source)
    again, rest_again = onnx_wire.decode_model(onnx_wire.encode_model(graph, rest, {}))
    assert [(n.op_type, n.inputs, n.outputs, n.int_attributes) for n in again.nodes] == [
        (n.op_type, n.inputs, n.outputs, n.int_attributes) for n in graph.nodes
    ]
    assert {name: bytes(tensor) for name, tensor in again.initializers.items()} == {
        name: bytes(tensor) for name, tensor in graph.initializers.items()
    }
    assert [bytes(raw) for _, raw in rest_again] == [bytes(raw) for _, raw in rest]


def test_a_new_node_encodes_its_integer_attributes_as_onnx_reads_them() -> None:
    node = onnx_wire.OnnxNode("Cast", ["a"], ["b"], int_attributes={"to": 6, "axis": -1}, domain="com.example")
    decoded = onnx_wire.OnnxNode.decode(memoryview(node.encode()))
    assert (decoded.op_type, decoded.inputs, decoded.outputs, decoded.domain, decoded.int_attributes) == (
        "Cast",
        ["a"],
        ["b"],
        "com.example",
        {"to": 6, "axis": -1},
    )
