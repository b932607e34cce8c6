"""The English leg's models: which ones exist, what an index records of each, how each loads.
Light to import (the CLI reads the keys for its --english-model choices)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# e5's share beside the English model for an English question (0.2 for the English model).
# Measured on all five sets at once (bench/RESULTS.md, 2026-12-01; search/english.py has the
# Russian share): against 0.3 before, Flask MRR@10 0.602 -> 0.627, demo P@5 and semble English
# unchanged. More e5 for English (0.1 MiniLM) lifts semble (0.819) but costs CoSQA (0.515); none
# (1.0) costs demo P@5 (0.889).
ENGLISH_E5_WEIGHT = 0.8


@dataclass(frozen=True)
class EnglishModel:
    """A second, English-trained model for the dense leg, as an index records it."""

    key: str  # the `--english-model` value
    name: str  # recorded in the sidecar; the searcher embeds questions with the same model
    dim: int
    e5_weight: float  # e5's share beside it for an English question
    load: Callable[[], Any]  # -> an object with embed_queries / embed_passages


def _minilm() -> Any:
    from codelens.models.runtime import int8_ships
    from codelens.models.sentence import MINILM_NAME, MiniLM

    return MiniLM(int8=int8_ships(MINILM_NAME))


def _mpnet() -> Any:
    from codelens.models.sentence import MPNet

    return MPNet()


# all-MiniLM-L6-v2 is the default (first): a question costs a few ms. all-mpnet-base-v2 at the
# same share answers better on every set measured (bench/RESULTS.md, session 6: semble_py_dev
# English 0.837 -> 0.859, Russian 0.788 -> 0.803, demo P@5 0.967 -> 0.978, CoSQA 0.525 -> 0.544,
# mConala-ru 0.728 -> 0.735, Flask MRR@10 0.620 -> 0.635) but costs more per question and twice
# the indexing time and memory: a choice per index, with `--english-model` / CODELENS_ENGLISH_MODEL.
ENGLISH_MODELS: dict[str, EnglishModel] = {model.key: model for model in (
    EnglishModel("minilm", "all-MiniLM-L6-v2", 384, ENGLISH_E5_WEIGHT, _minilm),
    EnglishModel("mpnet", "all-mpnet-base-v2", 768, ENGLISH_E5_WEIGHT, _mpnet),
)}
ENGLISH_MODEL_KEYS = tuple(ENGLISH_MODELS)
DEFAULT_ENGLISH_MODEL = ENGLISH_MODEL_KEYS[0]
ENGLISH_MODEL = ENGLISH_MODELS[DEFAULT_ENGLISH_MODEL].name


def english_model(key: str) -> EnglishModel:
    """The English model for a `--english-model` key (or a recorded model name)."""
    for model in ENGLISH_MODELS.values():
        if key in (model.key, model.name):
            return model
    raise ValueError(f"unknown English model {key!r}: choose one of {', '.join(ENGLISH_MODELS)}")


def load_english_model(key: str = DEFAULT_ENGLISH_MODEL) -> Any:
    """The packaged model on onnxruntime (no torch; the vectors match sentence-transformers')."""
    return english_model(key).load()
