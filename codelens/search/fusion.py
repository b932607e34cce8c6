"""Fusion: the legs' candidate lists become one list, best first.

Min-max normalisation per leg, then a weighted sum: each leg says how much it has to say
about this question (its weight), so a Russian question whose words the code never uses is
not dragged down by a lexical leg that knows nothing (plain RRF is: bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from codelens.search.query import Fused, LegResult


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
        for candidate, value in zip(result.candidates, minmax(values), strict=True):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + result.weight * float(value)
            legs.setdefault(candidate.chunk_id, {})[result.name] = candidate.score
    return ordered(scores, legs, results)


def minmax(values: np.ndarray) -> np.ndarray:
    """(v - min) / (max - min); all ones when every value is the same."""
    span = values.max() - values.min()
    return (values - values.min()) / span if span > 0 else np.ones_like(values)


def ordered(scores: Mapping[str, float], legs: Mapping[str, Mapping[str, float]],
            results: Sequence[LegResult] = ()) -> list[Fused]:
    """Fused records best first (ties by chunk id), each with the index model's cosine when a leg knew it."""
    cosines = {c.chunk_id: c.cosine for r in results for c in r.candidates if c.cosine is not None}
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Fused(chunk_id, score, dict(legs.get(chunk_id, {})), cosines.get(chunk_id)) for chunk_id, score in ranked]
