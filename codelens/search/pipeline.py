"""The search pipeline: retrievers (legs), one fusion, then stages; and the pipeline CodeLens ships.

A search runs every retriever (each over-fetches and says how much it has to say about this
question), fuses their candidate lists, then passes the fused list through stages (re-ranking
steps over the fused list). Nothing here touches ChromaDB or the disk: the legs do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from codelens.search.bridge import WordBridge, crossed
from codelens.search.english import EnglishVectors, EnsembleDense
from codelens.search.fusion import convex_fusion
from codelens.search.lexical import LexicalIndex, LexicalRetriever
from codelens.search.query import Fused, Fusion, Query, Retriever, Stage

OVERFETCH_MIN = 50  # candidates each leg hands to fusion, at least
# In a workspace, each repository of the search's scope adds OVERFETCH_MIN, up to this many: its
# candidates then reach fusion about as deep as in its own index (bench/RESULTS.md, issue 30).
MAX_OVERFETCH_REPOSITORIES = 4
# A pasted task or log (a text longer than a question's few sentences, the line the e5 engines split at:
# models/embedders.SHORT_QUESTION_CHARS) is read LONG_DEPTH times deeper: its legs' lists are long tails
# of weak matches, and its first hits came out better so (bench/RESULTS.md, session 27).
LONG_QUERY_CHARS = 300
LONG_DEPTH = 8
# Short English questions lean on the two-model dense leg (the stronger one there): the
# lexical leg's weight is halved for them (bench/RESULTS.md).
ENGLISH_LEXICAL_SCALE = 0.5


@dataclass(frozen=True)
class HybridPipeline:
    """Retrievers, one fusion function, then stages: `search(query, k)` -> fused, best first."""

    retrievers: tuple[Retriever, ...]
    fusion: Fusion
    stages: tuple[Stage, ...] = ()
    overfetch: int = OVERFETCH_MIN
    bridge: WordBridge | None = None  # crosses a Russian question once, for every leg and stage

    def search(self, query: Query, k: int, depth: int | None = None) -> list[Fused]:
        """The k best. Their order never depends on k: fusion normalises each leg over its candidates,
        so legs asked for more moved the first places (two questions in three of the semble sets had
        another top 5 at k=50 than at k=10). The legs hand `depth` candidates (None: `depth_for`); a k
        beyond the list that gives gets a deeper search's others after it, never above it."""
        query = crossed(query, self.bridge)
        depth = depth or self.depth_for(query)
        fused = self._fused(query, depth)
        deeper = max(depth, k * 4)
        if k > len(fused) and deeper > depth:  # else the legs handed all they had: nothing more to find
            known = {item.chunk_id for item in fused}
            floor = fused[-1].score if fused else 0.0
            fused += [replace(item, score=min(item.score, floor)) for item in self._fused(query, deeper)
                      if item.chunk_id not in known]
        return fused[:k]

    def depth_for(self, query: Query) -> int:
        """Candidates per leg: `overfetch` for a question; for a pasted task LONG_DEPTH times a
        repository's (a workspace's deeper lists stay as they are)."""
        return max(self.overfetch, LONG_DEPTH * OVERFETCH_MIN) if len(query.text) > LONG_QUERY_CHARS else self.overfetch

    def _fused(self, query: Query, n: int) -> list[Fused]:
        results = [retriever.retrieve(query, n) for retriever in self.retrievers]
        fused = self.fusion(results)
        for stage in self.stages:
            fused = stage(query, fused)
        return fused


def overfetch_for(repositories: int) -> int:
    """Candidates per leg for a search over this many repositories: the legs' lists are shared
    by every repository in scope, and one repository's answer found by one leg only must still
    reach the other legs' lists to be fused."""
    return OVERFETCH_MIN * max(1, min(repositories, MAX_OVERFETCH_REPOSITORIES))


def shipped_pipeline(dense: Retriever, lexical: LexicalIndex, *, bridge: WordBridge | None = None,
                     english: EnglishVectors | None = None, accept: Callable[[str], bool] | None = None,
                     stages: Sequence[Stage] = (), overfetch: int = OVERFETCH_MIN,
                     fast: Retriever | None = None) -> HybridPipeline:
    """The pipeline CodeLens ships (measured in bench/RESULTS.md; bench/variants.py builds the others).

    Dense (e5, plus MiniLM when its vectors exist: on the question, or on a Russian question's
    pseudo-English words through the bridge) and BM25 (with the word bridge) are min-max
    fused; the lexical leg's weight is the share of the question's words the code knows,
    halved for short English questions when the two-model dense leg is on. `accept` filters
    chunks (kinds, tests, path) inside the legs, before they cut their lists; `stages` re-rank the
    fused list (the Searcher passes ranking.py's). `fast`: a partial index's static leg
    (static_leg.py), a third leg beside the e5 vectors embedded so far."""
    if english is not None:
        dense = EnsembleDense(dense, english.chunk_ids, english.vectors, english.embed_query,
                              e5_weight=english.e5_weight, accept=accept, bridge=bridge, positions=english.positions,
                              unreadable=english.unreadable)
    english_scale = ENGLISH_LEXICAL_SCALE if english is not None else 1.0
    lexical_leg = LexicalRetriever(lexical, bridge, accept, english_scale=english_scale)
    retrievers = (dense, lexical_leg) if fast is None else (dense, lexical_leg, fast)
    return HybridPipeline(retrievers, convex_fusion, tuple(stages), overfetch, bridge)
