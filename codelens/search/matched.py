"""How a hit was found, and what a person reads beside it instead of a relevance it does not have.

Standard library only: the CLI's fast path through a running server (cli/search.py) prints hit
lines without importing the search itself.
"""

from __future__ import annotations

# `Hit.matched`: by meaning (the vector legs), by its words (BM25 and the word bridge), by both,
# or pinned because the question names it (ranking.SymbolIntent).
MEANING, KEYWORDS, BOTH, NAME = "meaning", "keywords", "meaning+keywords", "name"


def relevance_text(relevance: float | None, matched: str) -> str:
    """`87.3%`; for a hit without an e5 vector (no relevance: a progressive run has not embedded it
    yet, or a test chunk's vector follows) how it was found, never a made-up 0.0%: by name, by
    meaning (a partial index's static leg, search/static_leg.py), or by keywords."""
    if relevance is not None:
        return f"{relevance:.1f}%"
    return {NAME: "matched by name", MEANING: "matched by meaning (fast leg, no vector yet)",
            BOTH: "matched by meaning and keywords (fast leg, no vector yet)"}.get(
        matched, "matched by keywords (no vector yet)")
