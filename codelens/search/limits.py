"""How many hits one search may return: one limit for every edge that takes `k` (the CLI's
`search -k`, `serve` requests, MCP `search`).

A module of its own, importing nothing: the CLI's fast path through a running `serve`
(cli/search.py) checks `-k` before it imports numpy or the searcher.
"""

from __future__ import annotations

# Beyond this a list stops being read (a person or an agent reads the first few); each leg
# fetches a few times k before fusing, so an unbounded k is also an unbounded search.
MAX_K = 100


def k_problem(k: object) -> str:
    """Why `k` is not a hit count a search takes, or "" when it is (a whole number 1..MAX_K)."""
    if isinstance(k, bool) or not isinstance(k, int):
        return f"k must be a whole number from 1 to {MAX_K}, got {k!r}"
    if not 1 <= k <= MAX_K:
        return f"k={k} is out of range - ask for 1 to {MAX_K} hits"
    return ""
