"""The few ONNX messages graph.py rewrites, read and written in protobuf's wire format.

An ONNX model is a protobuf ``ModelProto``.  Rewriting a handful of its nodes needs no ONNX
package (16 MB, with a protobuf of its own): the fields involved have had the same numbers since
ONNX 1.0, and everything else (initializers, value infos, metadata) is carried over as the bytes
it was.  Only the node list is decoded; tensors are decoded only where a rewrite reads a constant.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

# Wire types.
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5
# ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, OperatorSetIdProto, ValueInfoProto fields.
MODEL_GRAPH, MODEL_OPSET_IMPORT = 7, 8
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_OUTPUT = 1, 5, 12
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP_TYPE, NODE_ATTRIBUTE, NODE_DOMAIN = 1, 2, 3, 4, 5, 7
ATTRIBUTE_NAME, ATTRIBUTE_I, ATTRIBUTE_TYPE = 1, 3, 20
ATTRIBUTE_INT = 2  # AttributeProto.AttributeType.INT
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_FLOAT_DATA, TENSOR_NAME, TENSOR_RAW_DATA = 1, 2, 4, 8, 9
TENSOR_FLOAT, TENSOR_INT32 = 1, 6  # TensorProto.DataType
OPSET_DOMAIN, OPSET_VERSION = 1, 2
VALUE_INFO_NAME = 1


class WireFormatError(ValueError):
    """The bytes are not the protobuf message they should be."""


def read_varint(data: memoryview, position: int) -> tuple[int, int]:
    """The varint at ``position`` and the position after it."""
    value = shift = 0
    while True:
        if position >= len(data):
            raise WireFormatError("truncated varint")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
        if shift > 63:
            raise WireFormatError("varint longer than 10 bytes")


def fields(data: memoryview) -> Iterator[tuple[int, int, int | memoryview, memoryview]]:
    """Each field of a message: (number, wire type, value, the field's own bytes, key included)."""
    position = 0
    while position < len(data):
        start = position
        key, position = read_varint(data, position)
        number, wire = key >> 3, key & 7
        value: int | memoryview
        if wire == VARINT:
            value, position = read_varint(data, position)
        elif wire == LENGTH:
            size, position = read_varint(data, position)
            if position + size > len(data):
                raise WireFormatError("truncated field")
            value, position = data[position : position + size], position + size
        elif wire in (FIXED64, FIXED32):
            width = 8 if wire == FIXED64 else 4
            value, position = data[position : position + width], position + width
        else:
            raise WireFormatError(f"unsupported wire type {wire}")
        yield number, wire, value, data[start:position]


def varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # int64 two's complement, as protobuf writes it
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def length_field(number: int, payload: bytes) -> bytes:
    return _field_key(number, len(payload)) + payload


def _field_key(number: int, size: int) -> bytes:
    """The key and length of a length-delimited field of ``size`` bytes (its payload follows)."""
    return varint(number << 3 | LENGTH) + varint(size)


def varint_field(number: int, value: int) -> bytes:
    return varint(number << 3 | VARINT) + varint(value)


@dataclass
class OnnxNode:
    """A graph node: what rewrites read and write (of its attributes, the integer ones); ``encoded`` keeps
    an unchanged node's own bytes, all its attributes included."""

    op_type: str
    inputs: list[str]
    outputs: list[str]
    domain: str = ""
    name: str = ""
    int_attributes: dict[str, int] = field(default_factory=dict)
    encoded: bytes | None = None

    @classmethod
    def decode(cls, data: memoryview) -> OnnxNode:
        node = cls("", [], [], encoded=bytes(data))
        for number, _, value, _ in fields(data):
            if number == NODE_INPUT:
                node.inputs.append(_text(value))
            elif number == NODE_OUTPUT:
                node.outputs.append(_text(value))
            elif number == NODE_OP_TYPE:
                node.op_type = _text(value)
            elif number == NODE_DOMAIN:
                node.domain = _text(value)
            elif number == NODE_NAME:
                node.name = _text(value)
            elif number == NODE_ATTRIBUTE:
                attribute = {n: v for n, _, v, _ in fields(_message(value))}
                if attribute.get(ATTRIBUTE_TYPE) == ATTRIBUTE_INT and ATTRIBUTE_NAME in attribute:
                    node.int_attributes[_text(attribute[ATTRIBUTE_NAME])] = _signed(int(attribute.get(ATTRIBUTE_I, 0)))
        return node

    def encode(self) -> bytes:
        if self.encoded is not None:
            return self.encoded
        parts = [length_field(NODE_INPUT, name.encode()) for name in self.inputs]
        parts += [length_field(NODE_OUTPUT, name.encode()) for name in self.outputs]
        if self.name:
            parts.append(length_field(NODE_NAME, self.name.encode()))
        parts.append(length_field(NODE_OP_TYPE, self.op_type.encode()))
        for key, value in self.int_attributes.items():
            attribute = (
                length_field(ATTRIBUTE_NAME, key.encode())
                + varint_field(ATTRIBUTE_I, value)
                + varint_field(ATTRIBUTE_TYPE, ATTRIBUTE_INT)
            )
            parts.append(length_field(NODE_ATTRIBUTE, attribute))
        if self.domain:
            parts.append(length_field(NODE_DOMAIN, self.domain.encode()))
        return b"".join(parts)


@dataclass
class Graph:
    """A model's graph: its nodes decoded, its initializers by name (as bytes), everything else verbatim."""

    nodes: list[OnnxNode]
    initializers: dict[str, memoryview]  # name -> the TensorProto's bytes
    outputs: list[str]
    other_fields: list[tuple[int, memoryview]]  # (number, field bytes) of every other field, in order

    def constant(self, name: str) -> np.ndarray | None:
        """The value of initializer ``name`` as a float32 or int32 array; None if there is none, or of another type."""
        tensor = self.initializers.get(name)
        return None if tensor is None else decode_tensor(tensor)


def decode_graph(data: memoryview) -> Graph:
    graph = Graph([], {}, [], [])
    for number, _, value, raw in fields(data):
        if number == GRAPH_NODE:
            graph.nodes.append(OnnxNode.decode(_message(value)))
        elif number == GRAPH_INITIALIZER:
            message = _message(value)
            graph.initializers[_tensor_name(message)] = message
        else:
            if number == GRAPH_OUTPUT:
                graph.outputs.append(
                    next((_text(v) for n, _, v, _ in fields(_message(value)) if n == VALUE_INFO_NAME), "")
                )
            graph.other_fields.append((number, raw))
    return graph


def encode_graph(graph: Graph) -> list[bytes | memoryview]:
    """The graph's bytes, as pieces: its nodes, the initializers some node reads, then every other field as it was.

    Pieces, not one string: the initializers (most of the model) are copied once, when the model is joined.
    """
    used = {name for node in graph.nodes for name in node.inputs}
    pieces: list[bytes | memoryview] = [length_field(GRAPH_NODE, node.encode()) for node in graph.nodes]
    for name, tensor in graph.initializers.items():
        if name in used:
            pieces += [_field_key(GRAPH_INITIALIZER, len(tensor)), tensor]
    pieces += [raw for _, raw in graph.other_fields]
    return pieces


def decode_model(data: bytes) -> tuple[Graph, list[tuple[int, memoryview]]]:
    """The model's graph, and its other fields (number, bytes) in order."""
    view = memoryview(data)
    graph: Graph | None = None
    rest: list[tuple[int, memoryview]] = []
    for number, wire, value, raw in fields(view):
        if number == MODEL_GRAPH and wire == LENGTH:
            graph = decode_graph(_message(value))
        else:
            rest.append((number, raw))
    if graph is None:
        raise WireFormatError("the model has no graph")
    return graph, rest


def encode_model(graph: Graph, rest: list[tuple[int, memoryview]], extra_opsets: dict[str, int]) -> bytes:
    """The model with ``graph``, its other fields as they were, plus an opset import per ``extra_opsets`` domain."""
    opsets = [
        length_field(
            MODEL_OPSET_IMPORT, length_field(OPSET_DOMAIN, domain.encode()) + varint_field(OPSET_VERSION, version)
        )
        for domain, version in extra_opsets.items()
    ]
    graph_pieces = encode_graph(graph)
    graph_key = _field_key(MODEL_GRAPH, sum(len(piece) for piece in graph_pieces))
    return b"".join([*(raw for _, raw in rest), *opsets, graph_key, *graph_pieces])


def model_opsets(rest: list[tuple[int, memoryview]]) -> dict[str, int]:
    """The opset imports of a model (domain -> version) among its other fields."""
    found = {}
    for number, raw in rest:
        if number != MODEL_OPSET_IMPORT:
            continue
        ((_, _, value, _),) = fields(raw)
        entry = dict((n, v) for n, _, v, _ in fields(_message(value)))
        found[_text(entry[OPSET_DOMAIN]) if OPSET_DOMAIN in entry else ""] = int(entry.get(OPSET_VERSION, 0))
    return found


def decode_tensor(data: memoryview) -> np.ndarray | None:
    """A float32 or int32 tensor's values (raw or typed data); None for other element types."""
    dims: list[int] = []
    data_type, raw, floats = 0, None, None
    for number, wire, value, _ in fields(data):
        if number == TENSOR_DIMS:
            if wire == LENGTH:
                packed, position = _message(value), 0
                while position < len(packed):
                    dim, position = read_varint(packed, position)
                    dims.append(dim)
            else:
                dims.append(int(value))
        elif number == TENSOR_DATA_TYPE:
            data_type = int(value)
        elif number == TENSOR_RAW_DATA:
            raw = bytes(value)
        elif number == TENSOR_FLOAT_DATA and wire == LENGTH:
            floats = bytes(value)
    kinds = {TENSOR_FLOAT: "<f4", TENSOR_INT32: "<i4"}
    if data_type not in kinds:
        return None
    payload = raw if raw is not None else floats if data_type == TENSOR_FLOAT else None
    if payload is None:
        return None
    return np.frombuffer(payload, dtype=kinds[data_type]).reshape(dims or ())


def _signed(value: int) -> int:
    """An int64 read as an unsigned varint, back to its sign."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _tensor_name(data: memoryview) -> str:
    return next((_text(value) for number, _, value, _ in fields(data) if number == TENSOR_NAME), "")


def _message(value: int | memoryview) -> memoryview:
    """A length-delimited field's bytes (a nested message, a string, packed numbers): what ``fields`` yields for one."""
    assert isinstance(value, memoryview)
    return value


def _text(value: int | memoryview) -> str:
    assert isinstance(value, memoryview)
    return bytes(value).decode("utf-8")
