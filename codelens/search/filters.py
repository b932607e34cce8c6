"""What a search may return: kinds, a path prefix, and whether test code counts."""

from __future__ import annotations

from dataclasses import dataclass

from codelens.chunk import Chunk


@dataclass(frozen=True)
class SearchFilters:
    kinds: tuple[str, ...] = ()  # empty: every kind
    path_prefix: str = ""
    include_tests: bool = False

    def accepts(self, chunk: Chunk) -> bool:
        if self.kinds and chunk.kind not in self.kinds:
            return False
        if chunk.is_test and not self.include_tests:
            return False
        return chunk.path.startswith(self.path_prefix.removeprefix("./")) if self.path_prefix else True
