"""The sentence-transformers backend runs on CUDA when torch sees a GPU; e5 stays on the CPU."""

from __future__ import annotations

import pytest

from codelens.models import SentenceTransformerEmbedder, torch_device

# torch and a sentence-transformers model: the optional st: backend, in the full tier only
pytestmark = pytest.mark.slow


def test_device_follows_torch_unless_the_user_chose_one(monkeypatch) -> None:
    import torch

    monkeypatch.delenv("CODELENS_DEVICE", raising=False)
    assert torch_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    monkeypatch.setenv("CODELENS_DEVICE", "cpu")
    assert torch_device() == "cpu"


def test_packaged_model_loads_on_the_chosen_device(monkeypatch) -> None:
    monkeypatch.delenv("CODELENS_DEVICE", raising=False)
    model = SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    assert model._model.device.type == torch_device().split(":")[0]
    assert model.embed_passages(["def add(a, b): return a + b"]).shape == (1, model.dim)
