"""An encoder's weights as an ONNX graph, built with the `onnx` helper API (no torch, no export).

The graph takes what the model's own code prepares: the embedded tokens (word rows, positions
and token type already summed: the word table stays with the model, 4-bit for e5), the
attention mask and, for MPNet, the relative position bias. It returns the mean-pooled last
hidden states, not normalised: windows and normalisation stay with the model.
"""

from __future__ import annotations

import numpy as np

from codelens.models.weights import EncoderWeights, LayerWeights

# Gelu and LayerNormalization are single operators from opset 20 on: onnxruntime runs and
# fuses them (with the Add before each LayerNormalization) without pattern matching.
OPSET = 20
EMBEDDED, MASK, POSITION_BIAS, POOLED = "embedded", "mask", "position_bias", "pooled"
_ORT = "com.microsoft"


def encoder_graph(weights: EncoderWeights, with_position_bias: bool = False) -> bytes:
    """The serialised ONNX model of one encoder: (embedded, mask[, position_bias]) -> pooled.
    Attention is onnxruntime's own `Attention` operator (com.microsoft: the q, k, v projections,
    scaled dot product, padding mask and position bias in one kernel); spelled out in standard
    operators it measured 2-9% slower on e5 passages (interleaved, under load)."""
    from onnx import TensorProto, helper

    builder = _Builder()
    width = weights.width
    inputs = [helper.make_tensor_value_info(EMBEDDED, TensorProto.FLOAT, ["batch", "length", width]),
              helper.make_tensor_value_info(MASK, TensorProto.FLOAT, ["batch", "length"])]
    if with_position_bias:
        inputs.append(helper.make_tensor_value_info(POSITION_BIAS, TensorProto.FLOAT,
                                                    [weights.heads, "length", "length"]))
    x = builder.layer_norm(EMBEDDED, weights.embed_norm, weights.eps, "embed")
    mask_index = builder.op("Cast", MASK, to=TensorProto.INT32)
    position_bias = ""
    if with_position_bias:
        axis0 = builder.constant("axis_0", np.array([0], dtype=np.int64))
        position_bias = builder.op("Unsqueeze", POSITION_BIAS, axis0)
    for index, layer in enumerate(weights.layers):
        x = _layer(builder, x, mask_index, position_bias, layer, weights.heads, weights.eps, f"l{index}")
    mask3 = builder.op("Unsqueeze", MASK, builder.constant("axis_2", np.array([2], dtype=np.int64)))
    axis1 = builder.constant("axis_1", np.array([1], dtype=np.int64))
    summed = builder.op("ReduceSum", builder.op("Mul", x, mask3), axis1, keepdims=0)
    counts = builder.op("ReduceSum", MASK, axis1, keepdims=1)
    builder.op("Div", summed, counts, out=POOLED)
    output = helper.make_tensor_value_info(POOLED, TensorProto.FLOAT, ["batch", width])
    graph = helper.make_graph(builder.nodes, "encoder", inputs, [output], builder.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(_ORT, 1)],
                              producer_name="codelens")
    model.ir_version = 10
    return model.SerializeToString()


def _layer(builder: _Builder, x: str, mask_index: str, position_bias: str, layer: LayerWeights, heads: int,
           eps: float, name: str) -> str:
    inputs = [x, builder.constant(f"{name}.qkv.weight", layer.qkv.astype(np.float32)),
              builder.constant(f"{name}.qkv.bias", layer.qkv_bias.astype(np.float32)), mask_index]
    if position_bias:
        inputs += ["", position_bias]  # no past state
    attended = builder.op("Attention", *inputs, domain=_ORT, num_heads=heads, name=f"{name}.attention")
    projected = builder.linear(attended, layer.out, layer.out_bias, f"{name}.out")
    x = builder.layer_norm(builder.op("Add", projected, x), layer.norm1, eps, f"{name}.norm1")
    hidden = builder.op("Gelu", builder.linear(x, layer.up, layer.up_bias, f"{name}.up"))
    down = builder.linear(hidden, layer.down, layer.down_bias, f"{name}.down")
    return builder.layer_norm(builder.op("Add", down, x), layer.norm2, eps, f"{name}.norm2")


class _Builder:
    """Nodes and initialisers with generated names."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.initializers: list = []
        self._constants: set[str] = set()
        self._count = 0

    def constant(self, name: str, value: np.ndarray | np.generic) -> str:
        from onnx import numpy_helper

        if name not in self._constants:
            self._constants.add(name)
            self.initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, kind: str, *inputs: str, out: str | list[str] | None = None, name: str | None = None,
           **attributes: object) -> str:
        """`name`: the node's (the ones int8 quantisation picks by name have one, runtime.py)."""
        from onnx import helper

        self._count += 1
        outputs = out if isinstance(out, list) else [out or f"t{self._count}"]
        self.nodes.append(helper.make_node(kind, list(inputs), outputs, name=name, **attributes))
        return outputs[0]

    def linear(self, x: str, weight: np.ndarray, bias: np.ndarray, name: str) -> str:
        """x @ weight + bias (weight as (in, out): the way weights.py holds it); the MatMul is
        named `name` (e.g. "l3.down")."""
        product = self.op("MatMul", x, self.constant(f"{name}.weight", weight.astype(np.float32)), name=name)
        return self.op("Add", product, self.constant(f"{name}.bias", bias.astype(np.float32)))

    def layer_norm(self, x: str, weight_bias: tuple[np.ndarray, np.ndarray], eps: float, name: str) -> str:
        return self.op("LayerNormalization", x, self.constant(f"{name}.weight", weight_bias[0]),
                       self.constant(f"{name}.bias", weight_bias[1]), axis=-1, epsilon=float(eps))
