"""Fusion: the legs' candidate lists become one list, best first.

Min-max normalisation per leg, then a weighted sum: each leg says how much it has to say
about this question (its weight), so a Russian question whose words the code never uses is
not dragged down by a lexical leg that knows nothing (plain RRF is: bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from codelens.search.query import Fused, LegResult

# How far above the best code chunk's normalised score (1) a file's chunk may land in one leg.
ABOVE_CODE = 0.2


def convex_fusion(results: Sequence[LegResult]) -> list[Fused]:
    """score(d) = sum over legs of w_leg x minmax_leg(d): each leg's scores min-max normalised
    over its own candidates, w_leg its weight for this question; a candidate a leg did not
    return gets 0 from it."""
    scores: dict[str, float] = {}
    legs: dict[str, dict[str, float]] = {}
    for result in results:
        if not result.candidates:
            continue
        values = np.array([c.score for c in result.candidates], dtype=np.float64)
        for candidate, value in zip(result.candidates, minmax(values, result.scale), strict=True):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + result.weight * float(value)
            legs.setdefault(candidate.chunk_id, {})[result.name] = candidate.score
    return ordered(scores, legs, results)


def minmax(values: np.ndarray, scale: tuple[float, float] | None = None) -> np.ndarray:
    """(v - min) / (max - min); all ones when the range is empty. With a leg's `scale` (the range
    of its code, see filters.code_first), min and max are the scale's, and a value above it (a
    document or configuration piece that beats every piece of code) is held to
    1 + ABOVE_CODE: ahead of the code in this leg, but not by more than the code's own range
    allows (uncapped, prose beat the code on questions about code: semble fastapi 0.788 -> 0.773;
    at 1.0 the demo's questions about its files lost: file Hit@5 0.913 -> 0.826)."""
    low, high = scale if scale is not None else (values.min(), values.max())
    span = high - low
    scaled = (values - low) / span if span > 0 else np.ones_like(values)
    return np.minimum(scaled, 1.0 + ABOVE_CODE) if scale is not None else scaled


def ordered(scores: Mapping[str, float], legs: Mapping[str, Mapping[str, float]],
            results: Sequence[LegResult] = ()) -> list[Fused]:
    """Fused records best first (ties by chunk id), each with the index model's cosine when a leg knew it."""
    cosines = {c.chunk_id: c.cosine for r in results for c in r.candidates if c.cosine is not None}
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Fused(chunk_id, score, dict(legs.get(chunk_id, {})), cosines.get(chunk_id)) for chunk_id, score in ranked]
